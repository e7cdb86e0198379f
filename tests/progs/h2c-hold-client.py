#!/usr/bin/python3
"""h2c-hold-client: hold-client.py over HTTP/2 with prior knowledge (h2c),
for tests/e2e/target-hold.t.

  h2c-hold-client.py HOST:PORT N SPIN_MS

The connection preface and an empty SETTINGS (the server's SETTINGS
acknowledged before the first request), then N GETs on one connection,
one at a time, on streams 1, 3, 5...: each a HEADERS frame
(END_STREAM|END_HEADERS) of HPACK literals without indexing or Huffman,
read until its stream's END_STREAM (PING and SETTINGS answered on the
way). Each is timed from just before its HEADERS is sent to just after
its END_STREAM, then SPIN_MS of busy CPU before the next one. Run at a
real-time priority on the server's CPU, it takes that CPU the moment the
server's write wakes it and, SPIN_MS later, sends its next request while
the server is still in the read-until-EAGAIN loop of the same event: a
server that times that request from the event (epoll's return) counts the
earlier requests and spins in.

Output, exit status and timeout as hold-client.py's; an answer counts as
a 200 when its header block starts with 0x88 (:status 200, indexed).
"""
import importlib.util
import os
import struct
import sys

# hold-client.py's CLI and timed loop (its file name has a dash).
_spec = importlib.util.spec_from_file_location(
    "hold_client", os.path.join(os.path.dirname(os.path.abspath(__file__)), "hold-client.py"))
hold_client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hold_client)

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY = 0, 1, 3, 4, 6, 7
WINDOW_UPDATE = 8
END_STREAM = ACK = 0x1
END_HEADERS, PADDED, PRIORITY = 0x4, 0x8, 0x20


def frame(ftype, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", stream) + payload


def literal(name, value):
    """HPACK: a literal field without indexing, new name, no Huffman
    (both lengths < 127, so one byte each)."""
    return bytes([0, len(name)]) + name + bytes([len(value)]) + value


REQUEST = b"".join(literal(k, v) for k, v in (
    (b":method", b"GET"), (b":scheme", b"http"), (b":path", b"/"), (b":authority", b"127.0.0.1")))


class H2c:
    def __init__(self, sock):
        self.s, self.buf, self.stream, self.unacked = sock, b"", -1, 0
        sock.sendall(PREFACE + frame(SETTINGS, 0, 0))
        while True:   # until the server's own SETTINGS (answered by frame)
            ftype, flags, _, _ = self.frame()
            if ftype == SETTINGS and not flags & ACK:
                break

    def more(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError("the server closed the connection")
            self.buf += chunk

    def frame(self):
        """The next frame (type, flags, stream, payload); SETTINGS and
        PING are answered, DATA given back to the connection's window,
        GOAWAY raised."""
        self.more(9)
        length = int.from_bytes(self.buf[:3], "big")
        ftype, flags = self.buf[3], self.buf[4]
        stream = int.from_bytes(self.buf[5:9], "big") & 0x7fffffff
        self.more(9 + length)
        payload, self.buf = self.buf[9:9 + length], self.buf[9 + length:]
        if ftype == SETTINGS and not flags & ACK:
            self.s.sendall(frame(SETTINGS, ACK, 0))
        elif ftype == PING and not flags & ACK:
            self.s.sendall(frame(PING, ACK, 0, payload))
        elif ftype == GOAWAY:
            raise RuntimeError("GOAWAY " + payload.hex())
        elif ftype == DATA and length:
            self.unacked += length
            if self.unacked >= 32768:   # half the initial window: give it back
                self.s.sendall(frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", self.unacked)))
                self.unacked = 0
        return ftype, flags, stream, payload

    def ask(self):
        """One GET on the next stream; its status (200, or 0 for any
        other answer, a reset included) once its END_STREAM is read."""
        self.stream += 2
        sid, status = self.stream, 0
        self.s.sendall(frame(HEADERS, END_STREAM | END_HEADERS, sid, REQUEST))
        while True:
            ftype, flags, stream, payload = self.frame()
            if stream != sid:
                continue
            if ftype == RST_STREAM:
                return 0
            if ftype == HEADERS:
                if flags & PADDED:
                    payload = payload[1:len(payload) - payload[0]]
                if flags & PRIORITY:
                    payload = payload[5:]
                status = 200 if payload[:1] == b"\x88" else 0
            if ftype in (HEADERS, DATA) and flags & END_STREAM:
                return status


if __name__ == "__main__":
    sys.exit(hold_client.main(__doc__, "h2c-hold-client", lambda sock: H2c(sock).ask))
