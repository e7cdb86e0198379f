#!/bin/sh
# JMeter in its own distributed mode (instances: 2), through `loadbench run`
# against the real lb-target, for each version loadbench runs: 5.6.3 from
# Maven Central (the default; RMI over SSL with a keystore made for the
# run) and Debian's 2.13 (bin: /usr/share/jmeter; RMI bound by the
# launcher). Two jmeter-server engines and a controller (jmeter -n -R) that
# collects their samples over RMI.
# The row: ok, reconciled with the server (the controller's count holds
# both engines' samples), its footprint three process trees (controller +
# 2 engines) whose sum is the row's CPU and more than any one's, its
# percentiles exact (the controller's result file has every sample); each
# engine ran its share of the threads, listened on 127.0.0.1 only and
# exited by itself; nothing of the run is left running afterwards. Load:
# 3 s (JMeter's JVMs take longer than that to start); no bound here
# depends on this machine's speed. About 3 minutes on 2 cores.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
# No chart is checked here: gnuplot's rendering (seconds of CPU a run) is
# report_charts.t's and report_sweep.t's to test.
export LOADBENCH_GNUPLOT=
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"
printf 'load: {connections: 1, duration: 1s}\ntools: [jmeter]\n' > "$tmp/find.yaml"
"$LB" plan "$tmp/find.yaml" 2>&1 | grep -q '^  binary: ' ||
    skip_all "jmeter not found (scripts/install-tools: JMeter 5.6.3 from Maven Central, Debian's 2.13)"

# engines VERSION BIN: one distributed row of that JMeter (BIN: ", bin: ..."
# for the tool entry, or nothing for the default), in its own folder.
engines() {
ver=$1
tmp=$top/$ver
mkdir -p "$tmp"
cat > "$tmp/d.yaml" <<Y
name: jmeter-distributed
target: {delay: 1ms}
load: {connections: 5, duration: 3s}
tools:
  - {tool: jmeter, label: jm2, instances: 2$2}
sampling: {interval: 500ms}
grace: 60s
Y

# The plan says what the mode changes, before anything runs.
"$LB" plan "$tmp/d.yaml" > "$tmp/plan.out" 2>&1 || true
check "plan: the controller sends no load and collects the samples over RMI" \
    grep -q 'warning: JMeter in its distributed mode: the controller (jmeter -n -R) sends no load' "$tmp/plan.out"
check "plan: 2 instances, 3 processes" grep -q 'instances: 2 (3 processes)' "$tmp/plan.out"

# The TCP sockets JMeter's processes listen on (those whose working
# directory is one of the row's process folders), every 200 ms while it
# runs: "ADDR
# PORT" lines, ADDR as /proc/net/tcp{,6} has it. Stops by itself.
perl -e '
    my ($root, $out, $stop) = @ARGV;
    my %seen;
    for (1 .. 900) {
        last if -e $stop;
        my %ino;
        for my $d (glob "/proc/[0-9]*") {
            my $cwd = readlink "$d/cwd" or next;
            next unless index($cwd, "$root/p") == 0;
            opendir my $fd, "$d/fd" or next;
            for (readdir $fd) { my $l = readlink "$d/fd/$_" or next; $ino{$1} = 1 if $l =~ /^socket:\[(\d+)\]/ }
        }
        for my $f ("/proc/net/tcp", "/proc/net/tcp6") {
            open my $t, "<", $f or next;
            while (<$t>) {
                my @c = split;
                next unless @c > 9 && $c[3] eq "0A" && $ino{$c[9]};
                my ($a, $p) = split /:/, $c[1];
                $seen{sprintf "%s %d", $a, hex $p} = 1;
            }
        }
        select undef, undef, undef, 0.2;
    }
    open my $o, ">", $out or die; print $o "$_\n" for sort keys %seen;
' "$tmp/run/jm2" "$tmp/listen.txt" "$tmp/stop-watch" &
watcher=$!
track "$watcher"

rc=0
"$LB" run --quiet --out "$tmp/run" "$tmp/d.yaml" >"$tmp/run.out" 2>&1 || rc=$?
: > "$tmp/stop-watch"
wait "$watcher" || true
J=$tmp/run/run.json
check "loadbench run wrote run.json (exit $rc)" test -s "$J"
[ -s "$J" ] || { sed 's/^/# /' "$tmp/run.out"; return; }

perl -MJSON::PP -e '
    local $/; open my $f, "<", $ARGV[0] or exit 1; my $d = decode_json(<$f>);
    my $r = $d->{runs}[0]; my $fp = $r->{footprint}; my @p = @{$fp->{parts} || []};
    my ($max, $sum) = (0, 0);
    for (@p) { $sum += $_->{cpu_seconds}; $max = $_->{cpu_seconds} if $_->{cpu_seconds} > $max }
    my $c = $r->{crosscheck}; my $m = $r->{client}{latency_merge};
    printf "status=%s\ninstances=%s\ntrees=%s\nroles=%s\ncpu=%.9f\nparts_sum=%.9f\nparts_max=%.9f\n",
        $r->{status}, $r->{instances}, $fp->{trees}, join(",", map { $_->{role} } @p), $fp->{cpu_seconds}, $sum, $max;
    printf "verdict=%s\nclient=%s\nserver=%s\nbound=%s\n", $c->{verdict}, $c->{client}, $c->{server}, $c->{bound};
    printf "exact=%s\nmerge_instances=%s\n", $m ? ($m->{exact} ? "true" : "false") : "none", $m ? $m->{instances} : "";
    printf "files=%s\n", join(",", map { $_->{samples_file} } @p);
    printf "exits=%s\n", join(",", map { defined $_->{exit}{code} ? "code$_->{exit}{code}" : "signal" . ($_->{exit}{signal} // "?") } @p);
    my @pr = @{$r->{identity}{processes} || []};
    printf "ports=%s\n", join(",", map { $_->{settings}{rmi_port} // () } @pr);
    printf "shares=%s\n", join(",", map { $_->{settings}{engine_share} ? $_->{settings}{engine_share}[0]{threads} : () } @pr);
    printf "reason=%s\n", $r->{reason} // "";
    (my $v = $r->{identity}{version} // "") =~ s/\.19691222$//;
    printf "version=%s\n", $v;
    printf "ssl=%s\n", join(",", map { $_->{settings}{rmi_ssl} ? "ssl" : "plain" } @pr);
' "$J" > "$tmp/row"
val() { sed -n "s/^$1=//p" "$tmp/row"; }
diag "JMeter $ver, instances 2: $(val status), verdict $(val verdict): client $(val client), server $(val server)"
is "$(val version)" "$ver" "the row ran JMeter $ver"

is "$(val status)" ok "status ok"
[ "$(val status)" = ok ] || {
    diag "reason: $(val reason)"
    sed 's/^/# /' "$tmp/run.out" | tail -20
    for f in "$tmp"/run/jm2/p*/stdout.txt "$tmp"/run/jm2/p*/stderr.txt; do
        [ -f "$f" ] && { diag "$f:"; tail -n 8 "$f" | sed 's/^/#   /'; }
    done
}
is "$(val instances)" 2 "2 instances"
is "$(val trees)" 3 "the footprint is 3 process trees"
is "$(val roles)" controller,engine,engine "their roles: the controller and 2 engines"
check "the row's CPU is the sum of the trees' ($(val cpu) s)" \
    perl -e 'exit !(abs($ARGV[0] - $ARGV[1]) < 1e-6)' -- "$(val cpu)" "$(val parts_sum)"
check "and more than one tree's ($(val parts_max) s)" \
    perl -e 'exit !($ARGV[0] > $ARGV[1] && $ARGV[1] > 0)' -- "$(val cpu)" "$(val parts_max)"
v=$(val verdict)
check "reconciled with the server ($v: client $(val client), server $(val server), bound $(val bound))" \
    sh -c "[ '$v' = exact ] || [ '$v' = explained ]"
check "the server saw the load ($(val server) requests)" test "$(val server)" -gt 100
is "$(val exact)" true "the percentiles are exact: the controller has every engine's sample"
is "$(val merge_instances)" 2 "from 2 engines"
is "$(val shares)" 3,2 "5 threads: 3 on the first engine, 2 on the second"
if [ "$ver" = 5.6.3 ]; then
    is "$(val ssl)" ssl,ssl,ssl "5.6.3: every process runs RMI over SSL"
    check "5.6.3: the run's keystore, made by keytool" test -s "$tmp/run/jm2/rmi_keystore.jks"
    check "5.6.3: SSL never disabled" sh -c "! grep -q 'server.rmi.ssl.disable' '$tmp/run/jm2/p0/reproduce.sh' '$tmp/run/jm2/p1/reproduce.sh' '$tmp/run/jm2/p2/reproduce.sh'"
    check "5.6.3: an engine's remote object over SSL on the load address" \
        grep -q 'SSLRMIServerSocketFactory(host=/127.0.0.1' "$tmp/run/jm2/p1/stdout.txt"
fi
n=0
for f in $(val files | tr , ' '); do
    check "tree $n has its own series ($f)" test "$(wc -l < "$tmp/run/$f")" -ge 2
    check "tree $n has its own folder" test -f "$tmp/run/jm2/p$n/stdout.txt"
    n=$((n + 1))
done
is "$n" 3 "a series per tree"
is "$(val exits)" code0,code0,code0 "every process exited by itself with 0 (no engine had to be stopped)"
check "the controller's result file holds the samples" test "$(wc -l < "$tmp/run/jm2/p0/results.jtl")" -gt 100

# RMI on the loopback address only: each engine's registry was seen
# listening, and nothing of the run listened anywhere else.
for port in $(val ports | tr , ' '); do
    check "an engine listened on its port $port" grep -q " $port\$" "$tmp/listen.txt"
done
others=$(perl -ne 'my ($x) = split; print unless $x =~ /^(0100007F|0000000000000000FFFF00000100007F|00000000000000000000000001000000)$/i' \
    "$tmp/listen.txt")
is "$others" "" "no process of the run listened on an address other than loopback"
[ -z "$others" ] || diag "listened: $others"

# Nothing left: no process works in the run's folder, nothing listens on
# the engines' ports.
left=$(for d in /proc/[0-9]*; do
    c=$(readlink "$d/cwd" 2>/dev/null) || continue
    case $c in "$tmp/run/"*) echo "${d#/proc/}" ;; esac
done)
is "$left" "" "no process of the run is left (none works in its folder)"
for port in $(val ports | tr , ' '); do
    check "nothing listens on engine port $port any more" \
        perl -MIO::Socket::INET -e 'exit(IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $ARGV[0], Timeout => 2) ? 1 : 0)' "$port"
done
}

top=$tmp
engines 5.6.3 ""
tmp=$top # tap.sh removes $tmp at the end
if [ -r /usr/share/jmeter/bin/ApacheJMeter.jar ]; then
    engines 2.13 ", bin: /usr/share/jmeter"
    tmp=$top
else
    skip "JMeter 2.13: Debian's jmeter is not installed (apt-get install jmeter jmeter-http)"
fi
done_testing
