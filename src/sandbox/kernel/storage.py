import shutil


SCRATCH = "/tmp"


def scratch_names():
    try:
        return set(os.listdir(SCRATCH))
    except OSError:
        return set()


def clear_scratch(keep):
    """A stateless cell's /tmp files go with it (only the workspace persists), so a cell
    that fills /tmp cannot break the cells after it."""
    for name in scratch_names() - keep:
        path = os.path.join(SCRATCH, name)
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        except OSError:
            pass


def empty_workspace():
    """Task pools (evaluations) run many unrelated tasks on one tmpfs /workspace: what a task
    wrote goes with it. A task may have closed a directory to us (same uid): reopen first."""
    for name in os.listdir(WORKSPACE):
        path = os.path.join(WORKSPACE, name)
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
                for top, dirs, _ in os.walk(path):
                    for d in dirs:
                        if not os.path.islink(os.path.join(top, d)):
                            os.chmod(os.path.join(top, d), 0o700)
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        except OSError:
            pass


def workspace_space(root):
    """Whether the workspace's quota is used up, from its filesystem (each is its own)."""
    try:
        info = os.statvfs(root)
    except OSError:
        return {}
    full = info.f_bavail * info.f_frsize < (1 << 20) or (info.f_files > 0 and info.f_favail < 16)
    if not full:
        return {}
    return {"workspace_full": {"bytes": info.f_blocks * info.f_frsize, "files": info.f_files}}
