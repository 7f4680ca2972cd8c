import os
import signal
import time

PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36


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


def live_pids(keep):
    """Live processes other than pid 1 and `keep` (zombies are already dead)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or name == "1" or int(name) in keep:
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in (b"Z", b"X"):
            pids.append(int(name))
    return pids


def sweep(keep):
    """Kill every process but ours, pid 1 and `keep`; stopping first halts fork bombs."""
    keep = set(keep) | {os.getpid()}
    for _ in range(500):
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
        time.sleep(0.001)


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
