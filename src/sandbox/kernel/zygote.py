import gc
import os
import select
import signal
import socket
import struct


# Analyst's image ships a prebuilt matplotlib font cache here; copying it into the
# writable MPLCONFIGDIR saves rebuilding it in every new sandbox.
FONT_CACHE_DIR = "/opt/analyst/matplotlib-cache"


def seed_font_cache():
    target = WORKER_ENV["MPLCONFIGDIR"]
    try:
        names = [n for n in os.listdir(FONT_CACHE_DIR) if n.endswith(".json")]
        os.makedirs(target, exist_ok=True)
        for name in names:
            if not os.path.exists(os.path.join(target, name)):
                with open(os.path.join(FONT_CACHE_DIR, name), "rb") as src:
                    data = src.read()
                with open(os.path.join(target, name), "wb") as dst:
                    dst.write(data)
    except OSError:
        pass


# Names model-written code asks for when it wants Chinese labels (e.g. SimHei); where the
# image has Noto Sans CJK, they resolve to it instead of silently losing every glyph.
CJK_ALIASES = ("SimHei", "Microsoft YaHei", "SimSun", "Heiti SC", "PingFang SC", "WenQuanYi Micro Hei",
               "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Arial Unicode MS")


def alias_cjk_fonts():
    try:
        import dataclasses
        from matplotlib import font_manager

        entries = font_manager.fontManager.ttflist
        noto = [f for f in entries if f.name == "Noto Sans CJK JP"]
        known = {f.name for f in entries}
        for entry in noto:
            for alias in CJK_ALIASES:
                if alias not in known:
                    entries.append(dataclasses.replace(entry, name=alias))
    except Exception:
        pass


DEFAULT_PRELOAD = ("numpy", "pandas", "matplotlib")


def preload_names():
    """The host may name other modules (ANALYST_KERNEL_PRELOAD, comma-separated), e.g. an
    evaluation suite's libraries; cells never see the variable (their environment is reset)."""
    listed = os.environ.get("ANALYST_KERNEL_PRELOAD")
    if listed is None:
        return DEFAULT_PRELOAD
    return tuple(name for name in listed.split(",") if name)


def preload():
    """Import the heavy libraries a cell is likely to use, where the image has them."""
    import importlib

    loaded = {}
    names = preload_names()
    os.environ.update(WORKER_ENV)
    seed_font_cache()
    for name in names:
        try:
            module = importlib.import_module(name)
            if name == "matplotlib":
                module.use("Agg")
                import matplotlib.pyplot  # noqa: F401  (what cells import)

                alias_cjk_fonts()
            top = sys.modules.get(name.split(".")[0])
            loaded[name] = str(getattr(module, "__version__", None) or getattr(top, "__version__", "?"))
        except Exception:
            pass
    return loaded


def zygote_main(channel):
    """Fork workers on request; report their pids and exit statuses to the kernel."""
    prctl(PR_SET_DUMPABLE, 0)
    install_chart_hooks()  # before preload: an evaluation may preload plotly or altair
    loaded = preload()
    import linecache  # noqa: F401  (every cell uses these; import once, before forking)
    import traceback  # noqa: F401

    rehearse()
    # Freeze the warm heap: the collector then never walks it in a worker, which
    # would copy every page of it.
    gc.collect()
    gc.freeze()
    # Each worker's exit is watched through a pidfd, not SIGCHLD: a signal would also wake the
    # zygote whenever a worker stops or continues, once or twice per cell, each a context switch
    # that a busy machine can turn into a wait for the next scheduler tick.
    signal.signal(REHEARSAL_STOP, signal.SIG_IGN)  # until each worker's real cell is read
    channel.send(b"Y" + json.dumps(loaded).encode())
    workers = {}  # pidfd -> pid
    while True:
        # Without pidfds (an old kernel), exits are looked for every 50 ms.
        pidfds = [fd for fd in workers if fd >= 0]
        ready, _, _ = select.select([channel] + pidfds, [], [], None if len(pidfds) == len(workers) else 0.05)
        for fd in [fd for fd in workers if fd < 0 or fd in ready]:
            try:
                pid, status = os.waitpid(workers[fd], os.WNOHANG)
            except ChildProcessError:
                pid, status = workers[fd], 0
            if pid == 0:
                continue
            del workers[fd]
            if fd >= 0:
                os.close(fd)
            channel.send(b"X" + struct.pack(">ii", pid, status))
        if channel in ready:
            message, fds, _, _ = socket.recv_fds(channel, 64, 3)
            if not message:
                os._exit(0)
            pid = os.fork()
            if pid == 0:
                channel.close()
                for fd in workers:
                    if fd >= 0:
                        os.close(fd)
                try:
                    worker_main(message[1:].decode(), *fds)
                except BaseException:
                    traceback.print_exc()
                os._exit(70)
            for fd in fds:
                os.close(fd)
            try:
                workers[os.pidfd_open(pid)] = pid
            except (AttributeError, OSError):
                workers[-pid] = pid
            channel.send(b"P" + struct.pack(">i", pid))
