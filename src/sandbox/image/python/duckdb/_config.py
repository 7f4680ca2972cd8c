"""The settings every database of this package opens with, so DuckDB stays inside the
sandbox it runs in: the CPUs and a share of the memory of its container (cgroup v2), spill
files in the workspace (the sandbox's own writable storage, counted in its quota; /tmp is
memory), and no extension downloads or autoloading."""

import os

# DuckDB's share of the container's memory: the Python process, pandas and the result
# DataFrame need the rest.
MEMORY_SHARE = 0.4
WORKSPACE = "/workspace"
SPILL_DIRECTORY = ".duckdb_tmp"


def read_first_line(path):
    try:
        with open(path) as f:
            return f.readline().strip()
    except OSError:
        return ""


def cpu_limit():
    """CPUs the process may use: its affinity, lowered by a cgroup CPU quota."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    quota = read_first_line("/sys/fs/cgroup/cpu.max").split()  # cgroup v2: "quota period"
    if not quota:  # cgroup v1
        quota = [
            read_first_line("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"),
            read_first_line("/sys/fs/cgroup/cpu/cpu.cfs_period_us"),
        ]
    try:
        if int(quota[0]) > 0:
            cpus = min(cpus, max(1, -(-int(quota[0]) // int(quota[1]))))
    except (ValueError, IndexError, ZeroDivisionError):
        pass  # "max" or -1: no quota
    return max(1, cpus)


def memory_limit_bytes():
    """The container's memory limit (cgroup v2 or v1), or None when there is none."""
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        value = read_first_line(path)
        if value.isdigit() and int(value) < 1 << 50:  # v1 writes a huge number for "none"
            return int(value)
    return None


def spill_directory():
    if os.path.isdir(WORKSPACE) and os.access(WORKSPACE, os.W_OK):
        return os.path.join(WORKSPACE, SPILL_DIRECTORY)
    return None


def default_config():
    config = {
        "threads": str(cpu_limit()),
        "autoinstall_known_extensions": "false",
        "autoload_known_extensions": "false",
        "allow_community_extensions": "false",
    }
    limit = memory_limit_bytes()
    if limit:
        config["memory_limit"] = "%dMB" % max(64, int(limit * MEMORY_SHARE) >> 20)
    spill = spill_directory()
    if spill:
        config["temp_directory"] = spill
    return config
