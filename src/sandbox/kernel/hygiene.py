import os
import signal
import time

PR_SET_DUMPABLE, PR_SET_TIMERSLACK, PR_SET_CHILD_SUBREAPER = 4, 29, 36


def prctl(option, value):
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except Exception:
        return False


def reap_children():
    """Collect exited children; returns {pid: wait status}."""
    reaped = {}
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid == 0:
            return reaped
        reaped[pid] = status


# /proc/<pid>/stat flags: the task has entered the kernel's exit path (linux/sched.h).
PF_EXITING = 0x4


def live_pids(keep, exited=None):
    """Processes other than pid 1 and `keep` that may still run code: not zombies, and not
    killed ones already on their way out (`exited` decides what counts as gone)."""
    exited = exited or exiting
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or name == "1" or int(name) in keep:
            continue
        if not exited(name):
            pids.append(int(name))
    return pids


def dead(pid):
    """Whether the process is gone or a zombie (its memory is freed)."""
    try:
        with open("/proc/%s/stat" % pid, "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return True


def all_threads(pid, test):
    """Whether test(state, flags) holds for every thread of the process (a gone one passes)."""
    try:
        tasks = os.listdir("/proc/%s/task" % pid)
    except OSError:
        return True  # gone
    for task in tasks:
        try:
            with open("/proc/%s/task/%s/stat" % (pid, task), "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue  # this thread is gone
        try:
            if not test(fields[0], int(fields[6])):
                return False
        except (IndexError, ValueError):
            return False
    return True


def exiting(pid):
    """Whether every thread of the process is dead or exiting. A thread that has entered the
    exit path runs no more user code and makes no more system calls (a fatal signal is taken
    only between them); tearing down a forked worker's memory still takes milliseconds,
    which the end of a cell need not wait for."""
    return all_threads(pid, lambda state, flags: state in (b"Z", b"X") or flags & PF_EXITING)


def signal_group(pid, sig):
    """Signals process group `pid`, or process `pid` if it has left its group."""
    try:
        os.killpg(pid, sig)
    except OSError:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def halt(pid, attempts=500):
    """Stops process group `pid` and waits until every thread of process `pid` is stopped,
    gone or exiting (a thread stops only once it leaves a system call). The stop is sent
    again at each look, in case something continued it. False if a thread still runs after
    `attempts` looks."""
    for attempt in range(attempts):
        signal_group(pid, signal.SIGSTOP)
        if all_threads(pid, lambda state, flags: state in (b"T", b"t", b"Z", b"X") or flags & PF_EXITING):
            return True
        time.sleep(0.00002 if attempt < 20 else 0.001)
    return False


def sweep(keep):
    """Kill every process but ours, pid 1 and `keep`; stopping first halts fork bombs."""
    keep = set(keep) | {os.getpid()}
    for attempt in range(500):
        pids = live_pids(keep)
        if not pids:
            return
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
        reap_children()
        # A killed process is on its way out as soon as it next runs: look again soon.
        time.sleep(0.0001 if attempt < 10 else 0.001)


def settle(keep, timeout_s=1.0):
    """After a sweep, wait for the killed processes to finish exiting and reap them, so the
    next cell finds no zombies; done after the cell's end is sent, so the reply never waits."""
    keep = set(keep) | {os.getpid()}
    deadline = time.monotonic() + timeout_s
    while live_pids(keep, dead) and time.monotonic() < deadline:
        reap_children()
        time.sleep(0.001)
    reap_children()


def oom_kills():
    """The container's memory-killer counter (cgroup v2 or v1), or None if unreadable."""
    for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        try:
            with open(path) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 2 and parts[0] == "oom_kill":
                        return int(parts[1])
        except OSError:
            continue
    return None


def peak_rss(pid):
    """A process's peak resident memory in bytes (VmHWM), or None once it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def reset_peak_rss(pid):
    """Starts a kept process's peak over (a stateful worker's next cell has its own)."""
    try:
        with open("/proc/%d/clear_refs" % pid, "w") as f:
            f.write("5")
    except OSError:
        pass
