import mimetypes
import os

WORKSPACE = "/workspace"
SCAN_MAX_ENTRIES = 20000
SCAN_MAX_DEPTH = 16


def snapshot(root):
    """Regular files under root by relative path, never following symlinks."""
    found = {}
    stack = [(root, "", 0)]
    while stack and len(found) < SCAN_MAX_ENTRIES:
        path, rel, depth = stack.pop()
        try:
            entries = os.scandir(path)
        except OSError:
            continue
        with entries:
            for entry in entries:
                name = rel + entry.name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if depth < SCAN_MAX_DEPTH:
                            stack.append((entry.path, name + "/", depth + 1))
                    elif entry.is_file(follow_symlinks=False):
                        st = entry.stat(follow_symlinks=False)
                        found[name] = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
                except OSError:
                    continue
                if len(found) >= SCAN_MAX_ENTRIES:
                    break
    return found


def diff(before, after):
    changes = []
    for name, signature in sorted(after.items()):
        old = before.get(name)
        if old == signature:
            continue
        changes.append(
            {
                "path": name,
                "bytes": signature[0],
                "mime": mimetypes.guess_type(name)[0] or "application/octet-stream",
                "change": "created" if old is None else "modified",
            }
        )
    return changes
