import signal
import struct


class Worker:
    """A forked cell process, as the kernel sees it."""

    def __init__(self, mode, pid, code_w, out_r, done_r):
        self.mode, self.pid = mode, pid
        self.code_w, self.out_r, self.done_r = code_w, out_r, done_r
        self.exit_status = None  # wait status, once the zygote reports the exit

    @property
    def alive(self):
        return self.exit_status is None

    def submit(self, request):
        body = json.dumps(request).encode()
        try:
            write_all(self.code_w, struct.pack(">I", len(body)) + body)
            return True
        except OSError:
            return False

    def stop_rehearsal(self):
        """Before the request is written: a worker still rehearsing stops now (cell.py)."""
        try:
            os.kill(self.pid, REHEARSAL_STOP)
        except OSError:
            pass

    def signal(self, sig):
        signal_group(self.pid, sig)

    def dispose(self):
        if self.alive:
            self.signal(signal.SIGKILL)
        for fd in (self.code_w, self.out_r, self.done_r):
            try:
                os.close(fd)
            except OSError:
                pass
