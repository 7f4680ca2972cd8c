import json
import os
import resource
import select
import signal
import struct
import sys

WORKER_ENV = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME": "/tmp",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "MPLBACKEND": "Agg",
    "MPLCONFIGDIR": "/tmp/matplotlib",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
    "TMPDIR": "/tmp",
}
# An image may point matplotlib at its configuration; cells keep that.
if os.environ.get("MATPLOTLIBRC"):
    WORKER_ENV["MATPLOTLIBRC"] = os.environ["MATPLOTLIBRC"]
STATELESS, STATEFUL = "stateless", "stateful"
# Run once by the zygote and again by each fresh worker while it waits for its
# cell: the pages a typical cell touches are then copied before the cell arrives.
# Phases run cheapest first; a worker stops rehearsing as soon as its cell arrives. Each
# phase is one small step: a fresh worker's first pandas calls cost 10-16 ms each in page
# copies (on a VM a page fault can cost 20 µs), and a cell that arrives mid-phase waits
# for it, so no phase may be large.
WARMUP_PHASES = (
    "print(1)\n",
    """
try:
    import pandas as pd
except ImportError:
    pd = None
if pd is not None:
    frame = pd.DataFrame({"a": [1, 2, 3], "b": [0.5, 1.5, 2.5], "c": ["x", "y", "x"]})
""",
    "if pd is not None:\n    print(frame.sum().a)\n",
    "if pd is not None:\n    print(frame.groupby('c').b.mean().to_dict())\n",
    "if pd is not None:\n    print(frame.head())\n",
    "if pd is not None:\n    print(frame.describe().shape)\n",
)


def become_worker():
    """First steps of a fresh worker process, before it is needed."""
    os.setpgid(0, 0)
    signal.set_wakeup_fd(-1)
    for sig in (signal.SIGCHLD, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as in any Python process
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # SIGINT interrupts only while a cell runs
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")  # the memory killer takes a cell, never the kernel
    except OSError:
        pass


def set_streams():
    import io

    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(
        io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True
    )
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True
    )
    sys.__stdout__, sys.__stderr__, sys.__stdin__ = sys.stdout, sys.stderr, sys.stdin


def attach_output(out_w, keep_fds):
    """Point fds 1 and 2 at the output pipe, fd 0 at /dev/null; close everything else."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out_w, 1)
    os.dup2(out_w, 2)
    low = 3
    for fd in sorted(set(keep_fds)) + [1024]:
        os.closerange(low, fd)
        low = fd + 1
    set_streams()


# The kernel sends a stateless worker this signal just before its real cell: a worker still
# rehearsing drops the phase it is in instead of making the cell wait for it (on a busy
# machine a phase can take 10 ms). Ignored at any other time, by the zygote too (workers
# inherit that), and set back to its default only once the real cell has been read, so a
# late signal can never reach a cell.
REHEARSAL_STOP = signal.SIGUSR1


class RehearsalOver(BaseException):
    """Raised inside a rehearsal cell when the real cell has come."""


def stop_rehearsal(_signum, frame):
    rehearsal_state["stop"] = True
    # Only rehearsal code (compiled as <cell>) is ever interrupted: never this module's own
    # bookkeeping around it (streams, pipes, the namespace), which must run to its end.
    while frame is not None:
        if frame.f_code.co_filename == "<cell>":
            raise RehearsalOver()
        frame = frame.f_back


rehearsal_state = {"stop": False}


def rehearse(pending_fd=None):
    """Serve synthetic cells through the real code path, output discarded.

    Run by the zygote (to fill caches) and by each fresh worker while it waits:
    the pages a cell touches are then already copied when the real cell arrives.
    A worker stops when its real cell is already waiting on `pending_fd`, or at once,
    mid-phase, when the kernel sends REHEARSAL_STOP.
    """
    signal.signal(REHEARSAL_STOP, stop_rehearsal)
    saved = (os.dup(1), os.dup(2))
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    set_streams()
    main = sys.modules.get("__main__")
    code_r, code_w = os.pipe()
    done_r, done_w = os.pipe()
    namespace = None
    for code in WARMUP_PHASES:
        if rehearsal_state["stop"] or (pending_fd is not None and select.select([pending_fd], [], [], 0)[0]):
            break
        body = json.dumps({"id": "rehearsal", "code": code, "timeout_ms": 30000, "cwd": "/"}).encode()
        write_all(code_w, struct.pack(">I", len(body)) + body)
        _, namespace = serve_cell(code_r, done_w, namespace, rehearsal=True)
        os.read(done_r, DONE_MAX)
    signal.signal(REHEARSAL_STOP, signal.SIG_IGN)
    for fd in (code_r, code_w, done_r, done_w):
        os.close(fd)
    sys.modules["__main__"] = main
    os.dup2(saved[0], 1)
    os.dup2(saved[1], 2)
    for fd in saved:
        os.close(fd)
    set_streams()


def prepare_process():
    """The environment every cell starts in; set before the cell is asked for."""
    os.environ.clear()
    os.environ.update(WORKER_ENV)
    if "" not in sys.path:
        sys.path.insert(0, "")
    prepare_cell({})


def prepare_cell(request):
    try:
        os.chdir(request.get("cwd") or "/workspace")
    except OSError:
        os.chdir("/tmp")
    limit = request.get("max_file_bytes")
    if limit:
        if resource.getrlimit(resource.RLIMIT_FSIZE)[1] != limit:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def mark_savefig():
    """Remember which figures a cell saved itself, so only unsaved ones are auto-saved."""
    figure = sys.modules.get("matplotlib.figure")
    if figure is None or getattr(figure.Figure.savefig, "_analyst", False):
        return
    original = figure.Figure.savefig

    def savefig(self, *args, **kwargs):
        self._analyst_saved = True
        return original(self, *args, **kwargs)

    savefig._analyst = True
    figure.Figure.savefig = savefig


def has_drawing(fig):
    """Whether a figure shows anything: a blank plt.figure() (seaborn's figure-level functions
    then draw their own) or empty axes would be saved as a blank chart."""
    titles = [getattr(fig, name, None) for name in ("_suptitle", "_supxlabel", "_supylabel")]
    texts = [text for text in fig.texts if not any(text is title for title in titles)]
    if texts or fig.images or fig.lines or fig.patches or fig.legends:
        return True
    for ax in fig.axes:
        if ax.has_data() or ax.texts or ax.tables or ax.artists or ax.images:
            return True
    return False


def save_open_figures():
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    try:
        for number in plt.get_fignums():
            fig = plt.figure(number)
            if getattr(fig, "_analyst_saved", False) or not has_drawing(fig):
                continue
            index = 1
            while os.path.lexists("figure-%d.png" % index):
                index += 1
            fig.savefig("figure-%d.png" % index, format="png", dpi=100, bbox_inches="tight")
        plt.close("all")
    except Exception as error:  # a broken figure must not hide the cell's own result
        sys.stderr.write("[analyst] could not save an open figure: %r\n" % (error,))


# The done pipe carries ">iI" (status, length) and an error record of at most this many
# bytes in one write, which is atomic for a pipe (PIPE_BUF is 4096).
DONE_MAX = 4096
ERROR_RECORD_MAX = DONE_MAX - 8


def error_record(error, tb):
    """The cell's exception as data: name, value, traceback lines, and the user's line."""
    import traceback

    line = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == "<cell>":
            line = frame.lineno
    try:
        lines = traceback.format_exception(type(error), error, tb)
    except Exception:
        lines = ["%s\n" % type(error).__name__]
    record = {"name": type(error).__name__, "value": str(error)[:1000], "line": line, "traceback": lines}
    body = json.dumps(record).encode()
    while len(body) > ERROR_RECORD_MAX and len(record["traceback"]) > 2:
        # Keep the first line and the frames nearest the error.
        record["traceback"] = record["traceback"][:1] + record["traceback"][2:]
        body = json.dumps(record).encode()
    if len(body) > ERROR_RECORD_MAX:
        record["traceback"], record["value"] = [], record["value"][:200]
        body = json.dumps(record).encode()
    return body


def run_code(code, namespace, prelude=None, epilogue=None):
    """Execute one cell; returns (exit status, error record or None). Errors print as a script's would.

    `prelude` and `epilogue` are Analyst's own code around the cell's (helpers it calls, values it
    hands back): same namespace, their own file names, so the cell's line numbers stay its own.
    """
    import linecache
    import traceback

    parts = [("<analyst-prelude>", prelude), ("<cell>", code), ("<analyst-epilogue>", epilogue)]
    parts = [(filename, source) for filename, source in parts if filename == "<cell>" or source]
    for filename, source in parts:
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    mark_savefig()
    status = 0
    record = None
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        for filename, source in parts:
            if filename == "<cell>" and may_show_charts(source):
                # The last expression is evaluated apart, so a chart it gives is shown (charts.py).
                import ast

                tree = ast.parse(source, filename)
                last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
                exec(compile(tree, filename, "exec"), namespace)
                if last is not None:
                    show_if_chart(eval(compile(ast.Expression(last.value), filename, "eval"), namespace))
            else:
                exec(compile(source, filename, "exec"), namespace)
    except SystemExit as exit_:
        value = exit_.code
        if value is None:
            status = 0
        elif isinstance(value, int):
            status = value & 0xFF
        else:
            sys.stderr.write("%s\n" % (value,))
            status = 1
    except RehearsalOver:
        status = 1  # no traceback: nobody reads a rehearsal's, and the real cell is waiting
    except BaseException as error:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        tb = error.__traceback__
        # Drop this function's frame so the traceback starts at the user's code.
        if tb is not None and tb.tb_frame.f_code is run_code.__code__:
            tb = tb.tb_next
        try:
            sys.stdout.flush()
        except Exception:
            pass
        try:
            traceback.print_exception(type(error), error, tb)
        except Exception:
            pass
        try:
            record = error_record(error, tb)
        except Exception:
            record = None
        status = 1
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    mark_savefig()
    save_open_figures()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    return status, record


def fresh_namespace(request):
    import types

    module = types.ModuleType("__main__")
    sys.modules["__main__"] = module  # so pickle and `import __main__` see the cell's module
    namespace = module.__dict__
    if request.get("inject_data"):
        try:
            with open("/workspace/data.json", encoding="utf-8") as f:
                payload = json.load(f)
            namespace["data"] = payload.get("data")
            namespace["results"] = payload.get("results")
        except (OSError, ValueError) as error:
            sys.stderr.write("[analyst] could not load data.json: %r\n" % (error,))
    return namespace


def read_request(fd):
    head = read_exactly(fd, 4)
    body = head and read_exactly(fd, struct.unpack(">I", head)[0])
    if not body:
        os._exit(0)  # the kernel is gone
    return json.loads(body)


def report_done(done_fd, status, record=None):
    body = record or b""
    try:
        os.write(done_fd, struct.pack(">iI", status, len(body)) + body)
    except OSError:
        pass  # the cell closed it; the kernel falls back to the exit status


def serve_cell(code_fd, done_fd, namespace, rehearsal=False):
    """Wait for one request, run it, report its status; returns (status, namespace)."""
    request = read_request(code_fd)
    if not rehearsal:
        # Any stop signal the kernel sent was sent before this request was written.
        signal.signal(REHEARSAL_STOP, signal.SIG_DFL)
    prepare_cell(request)
    if namespace is None:
        namespace = fresh_namespace(request)
    status, record = run_code(request["code"], namespace, request.get("prelude"), request.get("epilogue"))
    report_done(done_fd, status, record)
    return status, namespace


def worker_main(mode, code_fd, out_w, done_fd):
    become_worker()
    attach_output(out_w, {code_fd, done_fd})
    prepare_process()
    if mode == STATELESS:
        rehearse(code_fd)
    namespace = None
    while True:
        status, namespace = serve_cell(code_fd, done_fd, None if mode == STATELESS else namespace)
        if mode == STATELESS:
            # Stop instead of exiting: tearing down a forked worker's memory takes milliseconds
            # of CPU, which the cell's end need not wait for. The kernel kills it after the end.
            os.kill(os.getpid(), signal.SIGSTOP)
            os._exit(status)
