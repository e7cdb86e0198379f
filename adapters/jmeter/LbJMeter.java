/*
 * adapters/jmeter/LbJMeter.java — starts Debian 12's JMeter 2.13 so that it
 * can load test plans.
 *
 * Why: JMeter 2.13 reads .jmx files with XStream (SaveService's JMXSAVER and
 * JTLSAVER). Debian 12 ships XStream 1.4.20 (libxstream-java), whose security
 * framework denies every type not explicitly allowed; JMeter 2.13 predates it
 * and allows nothing, so every plan fails with
 *   ForbiddenClassException: org.apache.jmeter.save.ScriptWrapper
 * and the process still exits 0.
 *
 * What: this class does what org.apache.jmeter.NewDriver.main would, after
 * one extra step. It lets NewDriver build JMeter's class loader (its static
 * initializer), loads JMeter's properties and SaveService through that
 * loader, allows JMeter's and jorphan's own types (org.apache.jmeter.** and
 * org.apache.jorphan.**) on SaveService's two XStream instances, and then
 * hands over to NewDriver.main with the unchanged arguments. Nothing else
 * is allowed: a plan naming any other non-default type still fails.
 *
 * Build (Debian's javac; XStream from libxstream-java, LogKit from
 * libexcalibur-logkit-java, both on ApacheJMeter.jar's manifest class path):
 *   javac -d DIR -cp /usr/share/jmeter/bin/ApacheJMeter.jar:/usr/share/java/xstream.jar:/usr/share/java/excalibur-logkit.jar LbJMeter.java
 * Run: see adapters/jmeter/lb-jmeter and README.md.
 *
 * Distributed runs: with the system property lb.rmi.bind=ADDRESS (set by
 * lb-jmeter from LB_JMETER_RMI_HOST), every RMI server socket of this JVM
 * binds to ADDRESS only: a jmeter-server's registry and engine, a
 * controller's sample listener. JMeter 2.13 has no setting for it (its
 * registry, LocateRegistry.createRegistry(port), listens on every
 * address), and RMI takes its sockets from the global RMISocketFactory.
 *
 * Exit status: JMeter's own (it calls System.exit), or 70 when JMeter's
 * classes cannot be found or patched (message on stderr, "lb-jmeter:").
 */

import com.thoughtworks.xstream.XStream;

import org.apache.log.Hierarchy;
import org.apache.log.Logger;
import org.apache.log.Priority;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.rmi.server.RMISocketFactory;

public final class LbJMeter {
    private static final String[] ALLOWED = {
        "org.apache.jmeter.**",
        "org.apache.jorphan.**",
    };

    private LbJMeter() {
    }

    public static void main(String[] args) throws Throwable {
        Method driverMain;
        try {
            bindRmi(System.getProperty("lb.rmi.bind"));
            driverMain = prepare();
        } catch (IOException e) {
            System.err.println("lb-jmeter: cannot bind RMI to lb.rmi.bind: " + e);
            System.exit(70);
            return;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
            System.err.println("lb-jmeter: cannot prepare JMeter's XStream permissions: " + cause);
            System.exit(70);
            return;
        }
        try {
            driverMain.invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /* With an address, every RMI server socket of this JVM listens on it
     * alone (client sockets are plain); without, RMI's default. */
    private static void bindRmi(String address) throws IOException {
        if (address == null || address.isEmpty()) {
            return;
        }
        RMISocketFactory.setSocketFactory(new BoundRmi(InetAddress.getByName(address)));
        System.err.println("lb-jmeter: RMI listens on " + address + " only");
    }

    private static final class BoundRmi extends RMISocketFactory {
        private final InetAddress address;

        BoundRmi(InetAddress address) {
            this.address = address;
        }

        /* A server's own registry calls come through
         * LocateRegistry.getRegistry(port), which dials
         * InetAddress.getLocalHost() (127.0.1.1 on Debian, or the
         * machine's address): every RMI server of this machine's run
         * listens on address alone, so an address of this machine is
         * reached there. */
        @Override
        public Socket createSocket(String host, int port) throws IOException {
            InetAddress to = InetAddress.getByName(host);
            if (to.isAnyLocalAddress() || to.isLoopbackAddress() || NetworkInterface.getByInetAddress(to) != null) {
                to = address;
            }
            return new Socket(to, port);
        }

        @Override
        public ServerSocket createServerSocket(int port) throws IOException {
            return new ServerSocket(port, 50, address);
        }
    }

    /* Returns NewDriver.main, ready to call, after allowing JMeter's types. */
    private static Method prepare() throws ReflectiveOperationException {
        // NewDriver's static initializer builds JMeter's class loader from
        // jmeter.home's lib/ and lib/ext/ (where SaveService lives).
        Class<?> driver = Class.forName("org.apache.jmeter.NewDriver");
        Field loaderField = driver.getDeclaredField("loader");
        loaderField.setAccessible(true);
        ClassLoader loader = (ClassLoader) loaderField.get(null);
        String home = (String) driver.getMethod("getJMeterDir").invoke(null);

        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(loader);
        try {
            // SaveService's static initializer reads saveservice.properties
            // through JMeterUtils, so JMeter's properties must be loaded
            // first; JMeter.start loads them again (with -p/-q/-J) later.
            Class<?> utils = Class.forName("org.apache.jmeter.util.JMeterUtils", true, loader);
            utils.getMethod("setJMeterHome", String.class).invoke(null, home);
            utils.getMethod("loadJMeterProperties", String.class)
                .invoke(null, home + File.separator + "bin" + File.separator + "jmeter.properties");

            // SaveService logs five INFO lines as it initializes; JMeter's
            // logging is not set up yet (JMeter.start does that from -j),
            // so they would go to stdout. Quiet them, then let the category
            // inherit its level again.
            Logger saveLog = Hierarchy.getDefaultHierarchy().getLoggerFor("jmeter.save");
            saveLog.setPriority(Priority.WARN);
            try {
                Class<?> save = Class.forName("org.apache.jmeter.save.SaveService", true, loader);
                for (String name : new String[] {"JMXSAVER", "JTLSAVER"}) {
                    Field f = save.getDeclaredField(name);
                    f.setAccessible(true);
                    XStream xs = (XStream) f.get(null);
                    xs.allowTypesByWildcard(ALLOWED);
                }
            } finally {
                saveLog.unsetPriority();
            }
            System.err.println("lb-jmeter: XStream allows " + String.join(", ", ALLOWED)
                + " for JMeter's SaveService");
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
        return driver.getMethod("main", String[].class);
    }
}
