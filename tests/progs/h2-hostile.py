#!/usr/bin/python3
"""h2-hostile: HTTP/2 clients that misbehave on purpose, for
tests/e2e/target-h2.t (frames written by hand over plain TCP, h2c with prior
knowledge).

  h2-hostile.py idle HOST:PORT SECONDS      the preface, then nothing for SECONDS
  h2-hostile.py settings HOST:PORT N        the preface and N SETTINGS frames at
      once without reading, then read until EOF/reset/3 s; prints "end=..."
  h2-hostile.py streams HOST:PORT N         N requests (HEADERS with END_STREAM)
      in one write before reading, then read every frame for up to 5 s;
      prints "answered=A refused=R" (A: responses whose DATA ended, R:
      RST_STREAM REFUSED_STREAM received)
  h2-hostile.py bodyshort HOST:PORT N       a POST whose DATA stops after N bytes
      (no END_STREAM), then the connection closes: a body that never ends
  h2-hostile.py bodyreset HOST:PORT N       the same, but the client resets the
      stream (RST_STREAM CANCEL) and ends the connection cleanly (GOAWAY)
"""
import socket
import struct
import sys
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
# HPACK: :method GET, :scheme http, :path / (static table), :authority 127.0.0.1.
GET = b"\x82\x86\x84\x01\x09127.0.0.1"


def frame(ftype, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", stream) + payload


def addr(s):
    host, port = s.rsplit(":", 1)
    return host, int(port)


def read_frames(sock, seconds):
    """Every frame until EOF, reset or seconds; yields (type, flags, stream, payload)."""
    buf, end = b"", time.time() + seconds
    while time.time() < end:
        sock.settimeout(max(0.01, end - time.time()))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            return
        except ConnectionResetError:
            return
        if not chunk:
            return
        buf += chunk
        while len(buf) >= 9:
            n = struct.unpack(">I", b"\0" + buf[:3])[0]
            if len(buf) < 9 + n:
                break
            yield buf[3], buf[4], struct.unpack(">I", buf[5:9])[0] & 0x7FFFFFFF, buf[9:9 + n]
            buf = buf[9 + n:]


def streams(a, n):
    with socket.create_connection(addr(a)) as s:
        # A connection window big enough for every answer: only the stream limit refuses.
        s.sendall(PREFACE + frame(4, 0, 0) + frame(8, 0, 0, struct.pack(">I", 1 << 30)) +
                  b"".join(frame(1, 0x5, 2 * i + 1, GET) for i in range(n)))
        answered = refused = 0
        for ftype, flags, stream, payload in read_frames(s, 5):
            if ftype == 4 and not flags & 1:
                s.sendall(frame(4, 1, 0))   # ACK the server's SETTINGS
            if ftype == 0 and flags & 1:
                answered += 1
            if ftype == 3 and struct.unpack(">I", payload)[0] == 7:
                refused += 1
            if answered + refused == n:
                break
        print("answered=%d refused=%d" % (answered, refused))


def settings(a, n):
    with socket.create_connection(addr(a)) as s:
        try:
            s.sendall(PREFACE + frame(4, 0, 0, struct.pack(">HI", 3, 100)) * n)
            end = "eof"
            for _ in read_frames(s, 3):
                pass
        except (BrokenPipeError, ConnectionResetError):
            end = "reset"
        print("end=%s" % end)


# HPACK: :method POST (static table), :scheme http, :path /, :authority 127.0.0.1.
POST = b"\x83\x86\x84\x01\x09127.0.0.1"


def body_cut(a, n, reset):
    """A POST on stream 1 whose body stops after n bytes; then a reset of
    the stream (reset) or nothing, and the connection closes once the
    server has acknowledged our SETTINGS (so every byte was read)."""
    with socket.create_connection(addr(a)) as s:
        data = b"".join(frame(0, 0, 1, b"x" * min(16384, n - i)) for i in range(0, n, 16384))
        s.sendall(PREFACE + frame(4, 0, 0) + frame(1, 0x4, 1, POST) + data)
        if reset:
            s.sendall(frame(3, 0, 1, struct.pack(">I", 8)))   # RST_STREAM CANCEL
        s.sendall(frame(6, 0, 0, b"\0" * 8))   # PING: its ACK comes after all of the above was read
        for ftype, flags, stream, payload in read_frames(s, 5):
            if ftype == 6 and flags & 1:
                break
        if reset:
            s.sendall(frame(7, 0, 0, struct.pack(">II", 1, 0)))   # GOAWAY NO_ERROR
    print("sent=%d" % n)


def idle(a, seconds):
    with socket.create_connection(addr(a)) as s:
        s.sendall(PREFACE)
        time.sleep(seconds)
    print("idle=%s" % seconds)


def main(argv):
    mode, a, n = argv[1], argv[2], argv[3]
    try:
        if mode == "streams":
            streams(a, int(n))
        elif mode == "settings":
            settings(a, int(n))
        elif mode in ("bodyshort", "bodyreset"):
            body_cut(a, int(n), mode == "bodyreset")
        elif mode == "idle":
            idle(a, float(n))
        else:
            raise RuntimeError("unknown mode " + mode)
    except (OSError, RuntimeError) as e:
        print("h2-hostile %s: %s" % (mode, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
