#!/usr/bin/python3
"""tls-client: the TLS client of tests/e2e/target-tls.t (Python's ssl module,
i.e. the system OpenSSL), verifying lb-target against the run's CA.

  tls-client.py keepalive HOST:PORT N VERSION CA [ALPN,...]
      one connection, N GETs in turn; prints "ok=N alpn=P version=V cipher=C"
  tls-client.py newconn HOST:PORT N VERSION CA resume|noresume
      N connections of one GET each (ALPN http/1.1), offering the previous session when
      asked; prints "ok=N resumed=K" (K: the handshakes the client saw resumed)
  tls-client.py cut HOST:PORT      a ClientHello cut short, then close
  tls-client.py garbage HOST:PORT  plain HTTP instead of a handshake, then read to
      EOF or reset; prints "http=0|1 end=eof|reset" (http=1: an HTTP answer came)
VERSION is 1.2 or 1.3. Exit status 1 on any failure, with the reason on stderr.
"""
import socket
import ssl
import sys


def addr(s):
    host, port = s.rsplit(":", 1)
    return host, int(port)


def context(version, ca, alpn=None):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(ca)
    v = ssl.TLSVersion.TLSv1_3 if version == "1.3" else ssl.TLSVersion.TLSv1_2
    ctx.minimum_version = ctx.maximum_version = v
    if alpn:
        ctx.set_alpn_protocols(alpn.split(","))
    return ctx


def get(sock):
    """One GET and its whole response; returns the status line."""
    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("EOF before the response head")
        buf += chunk
    head, body = buf.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        k, v = line.split(b":", 1)
        if k.strip().lower() == b"content-length":
            length = int(v)
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("EOF inside the body")
        body += chunk
    status = head.split(b"\r\n")[0].decode()
    if " 200 " not in status + " ":
        raise RuntimeError("status " + status)
    return status


def keepalive(a, n, version, ca, alpn=None):
    ctx = context(version, ca, alpn)
    with socket.create_connection(addr(a)) as raw:
        with ctx.wrap_socket(raw, server_hostname=addr(a)[0]) as s:
            for _ in range(n):
                get(s)
            print("ok=%d alpn=%s version=%s cipher=%s" % (n, s.selected_alpn_protocol(), s.version(), s.cipher()[0]))


def newconn(a, n, version, ca, resume):
    ctx = context(version, ca, "http/1.1")
    session, resumed = None, 0
    for _ in range(n):
        with socket.create_connection(addr(a)) as raw:
            with ctx.wrap_socket(raw, server_hostname=addr(a)[0], session=session) as s:
                get(s)
                resumed += s.session_reused
                if resume == "resume":
                    session = s.session
    print("ok=%d resumed=%d" % (n, resumed))


# The first 60 bytes of a TLS 1.3 ClientHello record (the header says more follow).
HELLO = bytes.fromhex("16030100f8010000f40303") + bytes(32) + b"\x20" + bytes(16)


def cut(a):
    with socket.create_connection(addr(a)) as s:
        s.sendall(HELLO)
    print("sent=%d" % len(HELLO))


def garbage(a):
    with socket.create_connection(addr(a)) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 4)
        s.settimeout(5)
        got, end = b"", "eof"
        try:
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                got += chunk
        except ConnectionResetError:
            end = "reset"
    print("http=%d end=%s" % (b"HTTP/" in got, end))


def main(argv):
    mode = argv[1]
    try:
        if mode == "keepalive":
            keepalive(argv[2], int(argv[3]), argv[4], argv[5], argv[6] if len(argv) > 6 else None)
        elif mode == "newconn":
            newconn(argv[2], int(argv[3]), argv[4], argv[5], argv[6])
        elif mode == "cut":
            cut(argv[2])
        elif mode == "garbage":
            garbage(argv[2])
        else:
            raise RuntimeError("unknown mode " + mode)
    except (OSError, RuntimeError, ssl.SSLError) as e:
        print("tls-client %s: %s" % (mode, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
