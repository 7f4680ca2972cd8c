import fcntl
import select
import signal
import socket
import struct
import time


ZYGOTE_TIMEOUT_S = 20.0
F_SETPIPE_SZ = 1031  # Linux; fcntl has the name only from Python 3.10

# Output is sent at most this late, so a short cell's output rides with its end frame.
OUTPUT_HOLD_S = 0.01
OUTPUT_HOLD_BYTES = 16384

# After a cell's end is sent, its clean-up waits this long for the host to read it first (one
# scheduler tick at 250 Hz, and then some): on a busy machine the host, woken on the cell's CPU,
# would otherwise wait behind milliseconds of teardown and rehearsal.
HOST_FIRST_S = 0.005
# For the first OUTPUT_HOLD_S of a cell the kernel also wakes this often. On a busy machine a
# hand-off inside the container (kernel to worker) can lose the CPU to another process until
# the next scheduler tick (4 ms at 250 Hz); a timer wake-up is a point where the scheduler
# looks again, and soon the container is owed the CPU. (Measured, loaded print(1): 1 ms
# wake-ups 2.8-3.2 ms, 0.5 ms ones 2.6-2.7 ms; at most 20 wake-ups, ~15 µs each, per cell.)
NUDGE_S = 0.0005


class Cell:
    """What the kernel knows about the running cell while it watches it."""

    def __init__(self, request, started):
        self.id = request.get("id")
        self.deadline = started + max(0.001, float(request.get("timeout_ms", 30000)) / 1000.0)
        self.cap = int(request.get("max_output_bytes", 40000))
        self.produced = 0
        self.held = []  # output not yet sent: short cells send it with their end frame
        self.held_bytes = 0
        self.held_since = None
        self.output_watch_at = started + OUTPUT_HOLD_S
        self.status_word = None  # from the worker's done pipe
        self.error = None  # the cell's exception as data (cell.py error_record), if it raised
        self.stop_status = None  # "timeout" | "cancelled"
        self.kill_at = None


class Kernel:
    def __init__(self, zygote_pid, channel):
        self.zygote_pid = zygote_pid
        self.channel = channel
        self.reader = FrameReader(PROTO_IN)
        self.pending = []
        self.workers = {STATELESS: None, STATEFUL: None}
        # A second stateless worker, rehearsed while the current one waits or serves: the next
        # cell often comes milliseconds after the last one ended (a model's short round), too
        # soon for a worker forked at that end to have rehearsed. Stopped while any cell runs,
        # so its rehearsal never takes the cell's CPU.
        self.spare = None
        self.data_pending = None
        self.oom_seen = oom_kills()

    # ---- workers
    def fork_worker(self, mode):
        code_r, code_w = os.pipe()
        out_r, out_w = os.pipe()
        done_r, done_w = os.pipe()
        socket.send_fds(self.channel, [b"F" + mode.encode()], [code_r, out_w, done_w])
        for fd in (code_r, out_w, done_w):
            os.close(fd)
        os.set_blocking(out_r, False)
        os.set_blocking(done_r, False)
        try:
            fcntl.fcntl(out_r, F_SETPIPE_SZ, 1 << 20)  # room for a burst while output is held
        except OSError:
            pass
        deadline = time.monotonic() + ZYGOTE_TIMEOUT_S
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.channel], [], [], max(0.0, deadline - time.monotonic()))
            message = self.read_channel() if ready else None
            if message is not None and message[0] == "P":
                return Worker(mode, message[1], code_w, out_r, done_r)
        raise SystemExit("the zygote did not fork a worker in time")

    def read_channel(self, block=False):
        """One message from the zygote: ("P", pid) or ("X", pid) (the exit is recorded)."""
        self.channel.setblocking(block)
        try:
            message = self.channel.recv(64)
        except BlockingIOError:
            return None
        if not message:
            raise SystemExit("the zygote is gone")
        if message[:1] == b"X":
            pid, status = struct.unpack(">ii", message[1:9])
            for worker in self.workers.values():
                if worker is not None and worker.pid == pid:
                    worker.exit_status = status
            return ("X", pid)
        return ("P", struct.unpack(">i", message[1:5])[0])

    def worker(self, mode):
        worker = self.workers[mode]
        if worker is None or not worker.alive:
            if worker is not None:
                worker.dispose()
            if mode == STATELESS and self.spare is not None and self.spare.alive:
                worker, self.spare = self.spare, None
                worker.signal(signal.SIGCONT)  # halted while a cell ran, if it was
            else:
                worker = self.fork_worker(mode)
            self.workers[mode] = worker
        return worker

    def ensure_spare(self):
        if self.spare is not None and not self.spare.alive:
            self.spare.dispose()
            self.spare = None
        if self.spare is None:
            self.spare = self.fork_worker(STATELESS)

    def kept_pids(self):
        """The processes that outlive a cell: the zygote and the live workers."""
        workers = list(self.workers.values()) + [self.spare]
        return [self.zygote_pid] + [w.pid for w in workers if w is not None and w.alive]

    def retire(self, mode):
        worker = self.workers[mode]
        if worker is not None:
            worker.dispose()
            self.workers[mode] = None

    # ---- host frames
    def next_frame(self):
        if self.pending:
            return self.pending.pop(0)
        while True:
            frame = self.reader.pop()
            if frame is not None or self.reader.eof:
                return frame
            ready, _, _ = select.select([PROTO_IN, self.channel], [], [])
            if self.channel in ready:
                self.read_channel()
            if PROTO_IN in ready:
                self.reader.fill()

    def serve(self):
        while True:
            frame = self.next_frame()
            if frame is None or frame[0] == "Q":
                return
            kind, payload = frame
            if kind == "D":
                self.data_pending = payload
            elif kind == "R":
                self.run(json.loads(payload))
            # A "C" between cells has nothing to cancel.

    # ---- one cell
    def run(self, request):
        started = time.monotonic()
        mode = STATEFUL if request.get("stateful") else STATELESS
        if self.data_pending is not None:
            try:
                with open(os.path.join(WORKSPACE, "data.json"), "wb") as f:
                    f.write(self.data_pending)
                request["inject_data"] = True
            except OSError as error:
                log("warning", "could not write data.json: %r" % (error,))
            self.data_pending = None
        scan = request.get("scan_artifacts", True)
        before = snapshot(WORKSPACE) if scan else {}
        scratch_before = scratch_names()
        worker = self.worker(mode)
        if self.spare is not None:
            # Stopped before the cell starts (not after: on the container's one CPU the cell may
            # run first), so its rehearsal never takes the cell's CPU; continued with the kept
            # processes at the end.
            halt(self.spare.pid)
        if mode == STATEFUL:
            worker.signal(signal.SIGCONT)  # stopped since its last cell
            reset_peak_rss(worker.pid)
        else:
            worker.stop_rehearsal()
        if not worker.submit(request):
            self.retire(mode)
            worker = self.worker(mode)
            worker.submit(request)
        cell = Cell(request, started)
        self.watch(worker, cell)
        outcome = self.outcome(worker, cell)
        peak = peak_rss(worker.pid)
        if peak is not None:
            outcome["peak_memory_bytes"] = peak
        # Nothing of a cell runs on once it has ended: before the host hears of the end (and
        # may read the workspace), every process the cell left is killed, a spent stateless
        # worker is stopped (every thread of it), and so is a stateful worker until its next cell.
        spent = None
        if mode == STATELESS or not worker.alive:
            spent = self.workers[mode]
            self.workers[mode] = None
        held = [w for w in (spent, self.workers[STATEFUL]) if w is not None and w.alive]
        for process in held:
            process.signal(signal.SIGSTOP)  # first, so no thread of theirs forks while others go
        sweep(self.kept_pids() + [w.pid for w in held])
        killed = [w for w in held if not halt(w.pid)]
        for stuck in killed:  # a thread that would not stop: killed, and any state with it
            stuck.dispose()
            if stuck is self.workers[STATEFUL]:
                self.workers[STATEFUL] = None
                outcome["state_lost"] = True
        if killed:
            sweep(self.kept_pids() + [w.pid for w in held if w not in killed])
        keep = self.kept_pids()
        stateful = self.workers[STATEFUL]
        for pid in keep:
            if stateful is None or pid != stateful.pid:
                try:
                    os.kill(pid, signal.SIGCONT)  # a cell may have stopped them
                except OSError:
                    pass
        if cell.error is not None:
            outcome["error"] = cell.error
        outcome["artifacts"] = diff(before, snapshot(WORKSPACE)) if scan else []
        outcome.update(workspace_space(WORKSPACE))
        outcome["duration_ms"] = round((time.monotonic() - started) * 1000, 3)
        send(*self.held_frames(cell), frame("E", outcome))
        # The host reads the end first: killing the spent worker tears down its memory, and the
        # next worker's rehearsal follows, milliseconds of CPU on the CPU the host was woken on.
        self.yield_to_host()
        if spent is not None:
            spent.dispose()
        settle(keep)
        if mode == STATELESS:
            clear_scratch(scratch_before)
            if request.get("clear_workspace"):
                empty_workspace()
        self.worker(STATELESS)
        self.ensure_spare()

    def yield_to_host(self):
        """Wait HOST_FIRST_S, or less if the host already sends its next frame."""
        deadline = time.monotonic() + HOST_FIRST_S
        while not self.reader.eof and not self.pending and not self.reader.buf:
            wait = deadline - time.monotonic()
            if wait <= 0:
                return
            ready, _, _ = select.select([PROTO_IN, self.channel], [], [], wait)
            if self.channel in ready:
                while self.read_channel() is not None:
                    pass
            if PROTO_IN in ready:
                return

    def watch(self, worker, cell):
        while cell.status_word is None and worker.alive:
            now = time.monotonic()
            if cell.stop_status is None and now >= cell.deadline:
                self.stop(worker, cell, "timeout", now)
            if cell.kill_at is not None and now >= cell.kill_at:
                worker.signal(signal.SIGKILL)
                cell.kill_at = None
            wait = cell.deadline - now if cell.stop_status is None else 0.02
            if cell.held_since is not None:
                wait = min(wait, cell.held_since + OUTPUT_HOLD_S - now)
            # Output is held for OUTPUT_HOLD_S anyway: until then wake only for the cell's end,
            # so a short cell costs one wake-up, not two (its output is read with its end).
            quiet = now < cell.output_watch_at
            if quiet:
                wait = min(wait, cell.output_watch_at - now, NUDGE_S)
            fds = [worker.done_r, self.channel] if quiet else [worker.out_r, worker.done_r, self.channel]
            if not self.reader.eof:
                fds.append(PROTO_IN)
            ready, _, _ = select.select(fds, [], [], max(0.0, wait))
            if worker.out_r in ready:
                self.forward(worker.out_r, cell)
            if worker.done_r in ready:
                try:
                    raw = os.read(worker.done_r, DONE_MAX)
                    if len(raw) >= 8:
                        cell.status_word, length = struct.unpack(">iI", raw[:8])
                        if length and len(raw) >= 8 + length:
                            try:
                                cell.error = json.loads(raw[8 : 8 + length])
                            except ValueError:
                                cell.error = None
                except BlockingIOError:
                    pass
            if self.channel in ready:
                while self.read_channel() is not None:
                    pass
            if cell.status_word is None and worker.alive and PROTO_IN in ready:
                self.control(worker, cell)
            if cell.held_since is not None and (
                cell.held_bytes >= OUTPUT_HOLD_BYTES or time.monotonic() - cell.held_since >= OUTPUT_HOLD_S
            ):
                send(*self.held_frames(cell))
        # Everything the cell wrote before it finished is already in the pipe.
        while self.forward(worker.out_r, cell):
            pass

    def control(self, worker, cell):
        """Frames that arrive while a cell runs: cancel acts now, the rest waits."""
        self.reader.fill()
        while True:
            frame = self.reader.pop()
            if frame is None:
                break
            kind, payload = frame
            if kind == "C":
                try:
                    target = json.loads(payload).get("id")
                except ValueError:
                    target = None
                if target in (None, cell.id) and cell.stop_status is None:
                    self.stop(worker, cell, "cancelled", time.monotonic())
            else:
                self.pending.append(frame)
        if self.reader.eof and cell.stop_status is None:
            self.stop(worker, cell, "cancelled", time.monotonic())

    def stop(self, worker, cell, status, now):
        """Stateless cells are killed; stateful ones get SIGINT first to keep their variables."""
        cell.stop_status = status
        if worker.mode == STATEFUL:
            worker.signal(signal.SIGINT)
            cell.kill_at = now + (0.5 if status == "cancelled" else 1.0)
        else:
            worker.signal(signal.SIGKILL)

    def forward(self, fd, cell):
        """Read what the cell wrote; keep up to the cap, count the rest."""
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return 0
        if chunk and cell.produced < cell.cap:
            kept = chunk[: cell.cap - cell.produced]
            cell.held.append(kept)
            cell.held_bytes += len(kept)
            if cell.held_since is None:
                cell.held_since = time.monotonic()
        cell.produced += len(chunk)
        return len(chunk)

    def held_frames(self, cell):
        if not cell.held:
            return []
        data = b"".join(cell.held)
        cell.held, cell.held_bytes, cell.held_since = [], 0, None
        return [frame("O", data)]

    def outcome(self, worker, cell):
        result = {
            "id": cell.id,
            "output_bytes": cell.produced,
            "output_complete": cell.produced <= cell.cap,
            "exit_code": None,
            "signal": None,
            "reason": None,
            "state_lost": worker.mode == STATEFUL and not worker.alive,
        }
        status = worker.exit_status
        # The memory killer may have taken any process of the cell (a child it started, not
        # only the cell itself): read the counter after every cell so each kill is told once.
        seen, self.oom_seen = self.oom_seen, oom_kills()
        memory_killed = seen is not None and self.oom_seen is not None and self.oom_seen > seen
        if cell.stop_status is not None:
            result["status"] = result["reason"] = cell.stop_status
        elif cell.status_word is not None:
            result["status"] = "ok" if cell.status_word == 0 else "error"
            result["exit_code"] = cell.status_word
            if memory_killed:
                result["reason"] = "memory"
        elif os.WIFSIGNALED(status):
            result["status"] = "killed"
            result["signal"] = signal.Signals(os.WTERMSIG(status)).name
            if memory_killed:
                result["reason"] = "memory"
        else:
            code = os.WEXITSTATUS(status)
            result["status"] = "ok" if code == 0 else "error"
            result["exit_code"] = code
            if memory_killed:
                result["reason"] = "memory"
        return result


def main():
    prctl(PR_SET_DUMPABLE, 0)
    # Normally PID 1 of the container: orphans come to us anyway, and cells cannot signal us.
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    zygote_pid = os.fork()
    if zygote_pid == 0:
        ours.close()
        os.close(PROTO_IN)
        os.close(PROTO_OUT)
        zygote_main(theirs)
        os._exit(0)
    theirs.close()
    # Timer waits (the nudges, the stop checks) end when asked, not up to 50 µs later.
    prctl(PR_SET_TIMERSLACK, 1000)
    hello = ours.recv(65536)
    if hello[:1] != b"Y":
        log("error", "the zygote failed to start")
        return
    kernel = Kernel(zygote_pid, ours)
    kernel.worker(STATELESS)
    kernel.ensure_spare()
    # Walk the artifact code once so the first cell does not pay for it (the MIME table
    # alone is read from disk on first use).
    mimetypes.init()
    diff({}, snapshot(WORKSPACE))
    send(frame("Y", {"python": "%d.%d.%d" % sys.version_info[:3], "pid": os.getpid(), "preloaded": json.loads(hello[1:])}))
    try:
        kernel.serve()
    finally:
        for worker in list(kernel.workers.values()) + [kernel.spare]:
            if worker is not None:
                worker.dispose()


main()
