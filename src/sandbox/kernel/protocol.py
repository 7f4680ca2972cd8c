# Analyst sandbox kernel: standard library only, Python >= 3.9.
#
# The host joins this folder's files (see src/sandbox/kernel-source.ts) and runs
# them with `python3 -c` as the sandbox container's main process, so nothing of
# Analyst lives in the image.
#
# Processes inside a sandbox:
#   kernel  - talks to the host over its stdin/stdout; small, imports nothing heavy.
#   zygote  - imports pandas/numpy/matplotlib once and forks cell workers on request.
#   worker  - one per stateless cell (pre-forked and pre-warmed before it is asked
#             for), or one long-lived worker per stateful session.
# Keeping the heavy heap out of the kernel matters: after a fork, every page a
# process writes is copied, and page faults are expensive in virtual machines.
#
# Host channel: frames `u32 big-endian length | u8 type | payload`.
#   host -> kernel: R run (json)  D data.json bytes for the next R  C cancel  Q quit
#   kernel -> host: Y ready (json)  O output bytes  E end of cell (json)  L log (json)
# User code never sees these fds: a worker's fd 0 is /dev/null and fds 1 and 2 are
# one pipe that only the kernel reads, so nothing a cell writes or closes can break
# the framing; kernel and zygote are non-dumpable so a cell (same uid) cannot open
# their /proc/<pid>/fd entries or ptrace them.
import json
import os
import struct
import sys

def open_channel():
    """The host channel: a unix socket the host lends us (fast), else stdin and stdout."""
    path = os.environ.pop("ANALYST_KERNEL_SOCKET", "")
    if path:
        import socket

        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(path)
            fd = sock.detach()
            return fd, os.dup(fd)
        except OSError as error:
            sys.stderr.write("kernel: cannot connect to %s (%s); using stdio\n" % (path, error))
    return os.dup(0), os.dup(1)


PROTO_IN, PROTO_OUT = open_channel()


def frame(kind, payload=b""):
    if isinstance(payload, (dict, list)):
        payload = json.dumps(payload, separators=(",", ":")).encode()
    return struct.pack(">IB", len(payload) + 1, ord(kind)) + payload


def send(*frames):
    """Write whole frames in one write: every write crosses the Docker engine, which costs."""
    write_all(PROTO_OUT, b"".join(frames))


def log(level, message):
    try:
        send(frame("L", {"level": level, "message": message}))
    except OSError:
        pass


class FrameReader:
    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()
        self.eof = False

    def fill(self):
        # 64 KiB, not more: a larger buffer is a fresh mmap and munmap at every read (measured:
        # reading a cell's request took 70 µs longer with 1 MiB).
        chunk = os.read(self.fd, 65536)
        if not chunk:
            self.eof = True
        self.buf += chunk

    def pop(self):
        if len(self.buf) < 5:
            return None
        (length,) = struct.unpack_from(">I", self.buf)
        if len(self.buf) < 4 + length:
            return None
        kind = chr(self.buf[4])
        payload = bytes(self.buf[5 : 4 + length])
        del self.buf[: 4 + length]
        return kind, payload


def read_exactly(fd, n):
    data = bytearray()
    while len(data) < n:
        chunk = os.read(fd, min(65536, n - len(data)))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
