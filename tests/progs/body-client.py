#!/usr/bin/python3
"""body-client: HTTP/1.1 requests with bodies, sent the ways tools and
hostile clients send them, for tests/e2e/target-body.t.

  body-client.py cl HOST:PORT N SIZE PIECES GAP_MS
      N POSTs on one keep-alive connection, each with Content-Length SIZE;
      the head goes alone, then the body in PIECES pieces with GAP_MS between
      them (TCP_NODELAY: each piece its own segment); each answer read
      before the next request
  body-client.py chunked HOST:PORT N SIZE PIECES GAP_MS
      the same, Transfer-Encoding: chunked, one chunk per piece (the first
      with an extension), a trailer after the last
  body-client.py expect HOST:PORT SIZE
      a POST with Expect: 100-continue: the head, then wait for the interim
      answer, then the body; prints the statuses in order
  body-client.py pipeline HOST:PORT N SIZE
      N POSTs with SIZE-byte bodies, every other one chunked, in one write;
      then N answers
  body-client.py raw HOST:PORT TEXT
      send TEXT (Python escapes: \\r\\n, \\x00), half-close, print the statuses
      answered until EOF
  body-client.py never HOST:PORT SIZE SENT fin|rst
      a POST with Content-Length SIZE whose body stops after SENT bytes;
      checks nothing is answered for 0.3 s, then closes (FIN, or a reset)

Prints one line: key=value pairs (statuses=200,200,... ; ok=N). Exit status
0 when every final answer was the status the mode expects (200; raw and
never: any), 1 otherwise, 2 on a connection error. Every socket has a 10 s
timeout, so nothing hangs.
"""
import socket
import struct
import sys
import time


def addr(s):
    host, port = s.rsplit(":", 1)
    return host, int(port)


def dial(a):
    s = socket.create_connection(addr(a), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


class Reader:
    def __init__(self, sock):
        self.s, self.buf = sock, b""

    def more(self):
        chunk = self.s.recv(65536)
        if not chunk:
            raise EOFError
        self.buf += chunk

    def response(self):
        """The next answer's status (interim ones too); None at EOF."""
        try:
            while b"\r\n\r\n" not in self.buf:
                self.more()
        except EOFError:
            if self.buf:
                raise RuntimeError("EOF inside a response head")
            return None
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        n = 0
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                n = int(value)
        while len(self.buf) < n:
            self.more()
        self.buf = self.buf[n:]
        return status


def pieces(body, k):
    step = max(1, -(-len(body) // k))
    return [body[i:i + step] for i in range(0, len(body), step)]


def post_head(size, chunked, extra=""):
    framing = "Transfer-Encoding: chunked" if chunked else "Content-Length: %d" % size
    return ("POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n%s\r\n%s\r\n"
            % (framing, extra)).encode()


def chunked_body(parts):
    out = []
    for i, p in enumerate(parts):
        ext = ";name=value" if i == 0 else ""
        out.append(b"%x%s\r\n%s\r\n" % (len(p), ext.encode(), p))
    out.append(b"0\r\nX-Trailer: done\r\n\r\n")
    return out


def sequential(a, n, size, k, gap_ms, chunked):
    statuses = []
    with dial(a) as s:
        r = Reader(s)
        for _ in range(n):
            s.sendall(post_head(size, chunked))
            parts = pieces(b"b" * size, k)
            for p in chunked_body(parts) if chunked else parts:
                time.sleep(gap_ms / 1000.0)
                s.sendall(p)
            statuses.append(r.response())
    return statuses


def expect(a, size):
    with dial(a) as s:
        r = Reader(s)
        s.sendall(post_head(size, False, "Expect: 100-continue\r\n"))
        first = r.response()
        statuses = [first]
        if first == 100:
            s.sendall(b"e" * size)
            statuses.append(r.response())
    return statuses


def pipeline(a, n, size):
    batch = b""
    for i in range(n):
        chunked = i % 2 == 1
        body = b"p" * size
        batch += post_head(size, chunked) + (b"".join(chunked_body(pieces(body, 3))) if chunked else body)
    with dial(a) as s:
        r = Reader(s)
        s.sendall(batch)
        return [r.response() for _ in range(n)]


def raw(a, text):
    with dial(a) as s:
        s.sendall(text.encode().decode("unicode_escape").encode("latin-1"))
        s.shutdown(socket.SHUT_WR)
        r, statuses = Reader(s), []
        while True:
            st = r.response()
            if st is None:
                return statuses
            statuses.append(st)


def never(a, size, sent, how):
    s = dial(a)
    s.sendall(post_head(size, False) + b"n" * sent)
    s.settimeout(0.3)
    try:
        early = s.recv(1)
    except socket.timeout:
        early = b""
    if how == "rst":
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    return ["early-answer"] if early else []


def main(argv):
    mode, a = argv[1], argv[2]
    args = argv[3:]
    try:
        if mode in ("cl", "chunked"):
            st = sequential(a, int(args[0]), int(args[1]), int(args[2]), float(args[3]), mode == "chunked")
        elif mode == "expect":
            st = expect(a, int(args[0]))
        elif mode == "pipeline":
            st = pipeline(a, int(args[0]), int(args[1]))
        elif mode == "raw":
            st = raw(a, args[0])
        elif mode == "never":
            st = never(a, int(args[0]), int(args[1]), args[2])
        else:
            print("body-client: unknown mode " + mode, file=sys.stderr)
            return 2
    except (OSError, RuntimeError, EOFError, ValueError) as e:
        print("body-client %s: %s" % (mode, e), file=sys.stderr)
        return 2
    ok = sum(1 for x in st if x == 200)
    print("statuses=%s ok=%d" % (",".join(str(x) for x in st) or "none", ok))
    if mode in ("raw", "never"):
        return 0
    return 0 if st and st[-1] == 200 and ok == len([x for x in st if x != 100]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
