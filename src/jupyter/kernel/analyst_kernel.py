"""Analyst (sandboxed Python): a Jupyter kernel whose cells run in Analyst's hardened sandbox.

Built on ipykernel's Kernel base class (the Jupyter protocol, ZeroMQ and all, are ipykernel's);
every cell is forwarded to Analyst's thread exec API and streamed back. Installed by
`analyst jupyter install`, which writes kernel.json with the server, key and thread to use.

- Output streams as the cell writes it (stdout and stderr are one stream in the sandbox, as a
  terminal shows them); an exception arrives as data and becomes a Jupyter `error` with the
  user's traceback; figures and new image files become `display_data`.
- Interrupt (SIGINT) hangs up the cell's stream, which cancels it in the sandbox within a
  second (a stateful cell gets KeyboardInterrupt there and keeps its variables).
- Restart restarts the thread's sandbox kernel.
- `%analyst thread ID` on a cell's first lines attaches the kernel to a thread of the server
  (a notebook exported from a thread starts with it); `%analyst info` says where cells run;
  `%analyst restart` restarts the sandbox.
"""

import base64
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from analyst_client import AnalystError, Connection, OwnServer, settings_from_env  # noqa: E402
from ipykernel.kernelbase import Kernel  # noqa: E402

__version__ = "0.1.0"

IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif"}
MAX_IMAGE_BYTES = 10 * 1024 * 1024
# Where an exception's traceback starts in the output (it is shown as an `error` instead).
TRACEBACK_MARKERS = ("Traceback (most recent call last):", '  File "<cell>"')


class OutputFilter:
    """Streams output at once, except what may be the traceback the result also has as data."""

    def __init__(self, emit):
        self.emit = emit
        self.pending = ""  # a partial last line that might begin a traceback
        self.held = None  # everything from a traceback marker on

    def write(self, text):
        if self.held is not None:
            self.held += text
            return
        text = self.pending + text
        self.pending = ""
        at = marker_at(text)
        if at >= 0:
            self.emit(text[:at])
            self.held = text[at:]
            return
        newline = text.rfind("\n")
        tail = text[newline + 1 :]
        if tail and any(marker.startswith(tail) for marker in TRACEBACK_MARKERS):
            self.emit(text[: newline + 1])
            self.pending = tail
        else:
            self.emit(text)

    def finish(self, traceback_text=""):
        rest = self.pending + (self.held or "")
        self.pending, self.held = "", None
        if traceback_text and rest.endswith(traceback_text):
            rest = rest[: -len(traceback_text)]
        self.emit(rest)


def marker_at(text):
    best = -1
    for marker in TRACEBACK_MARKERS:
        start = 0
        while True:
            at = text.find(marker, start)
            if at < 0:
                break
            if at == 0 or text[at - 1] == "\n":
                best = at if best < 0 else min(best, at)
                break
            start = at + 1
    return best


class Target:
    """Where cells run: a server and a thread, found (or made) when the first cell needs them."""

    def __init__(self, settings):
        self.settings = settings
        self.own = None
        self.connection = None
        self.thread = settings["thread"]
        if settings["url"]:
            self.connection = Connection(settings["url"], settings["api_key"])
        elif settings["cli"]:
            self.own = OwnServer(settings["node"], settings["cli"])
        else:
            raise AnalystError("kernel.json names neither a server (ANALYST_KERNEL_URL) nor the analyst CLI")

    def ready(self):
        if self.connection is None:
            info = self.own.wait()
            self.connection = Connection(info["url"], info["api_key"])
            self.thread = info["thread_id"]
        if self.thread is None:
            made = self.connection.request(
                "POST", "/v1/threads", {"title": "Jupyter kernel", "metadata": {"created_by": "jupyter"}}
            )
            self.thread = made["id"]
        return self.connection, self.thread

    def attach(self, thread):
        if self.own is not None:
            raise AnalystError(
                "this kernel runs on a sandbox of its own; to attach it to a thread, install it with a server: "
                "analyst jupyter install --url URL --api-key KEY"
            )
        self.connection.request("GET", "/v1/threads/%s" % thread)  # yours, and there?
        self.thread = thread

    def describe(self):
        where = "a sandbox of its own" if self.own is not None else self.settings["url"]
        return "Analyst at %s, thread %s, %s cells" % (
            where,
            self.thread or "(made at the first cell)",
            "stateful" if self.settings["stateful"] else "stateless",
        )

    def close(self):
        if self.own is not None:
            self.own.close()


class AnalystKernel(Kernel):
    implementation = "analyst"
    implementation_version = __version__
    language = "python"
    language_version = "3"
    language_info = {
        "name": "python",
        "mimetype": "text/x-python",
        "file_extension": ".py",
        "codemirror_mode": {"name": "ipython", "version": 3},
        "pygments_lexer": "ipython3",
        "nbconvert_exporter": "python",
    }
    banner = "Analyst (sandboxed Python): every cell runs in Analyst's hardened sandbox (no network, 30 s a cell)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.settings = settings_from_env()
        self.target = Target(self.settings)

    # ---- execution
    def do_execute(self, code, silent, store_history=True, user_expressions=None, allow_stdin=False, **_):
        try:
            return self.execute(code, silent)
        except KeyboardInterrupt:
            # An interrupt outside the stream (while connecting, while fetching a figure).
            return self.failed("KeyboardInterrupt", "the cell was interrupted", silent)

    def execute(self, code, silent):
        lines = code.split("\n")
        while lines and lines[0].strip().startswith("%analyst"):
            reply = self.directive(lines.pop(0).strip(), silent)
            if reply is not None:
                return reply
        code = "\n".join(lines)
        if not code.strip():
            return self.ok()
        try:
            connection, thread = self.target.ready()
            stream = connection.exec_stream(thread, code, self.settings["stateful"], self.settings["timeout"])
        except AnalystError as error:
            return self.failed("AnalystUnavailable", str(error), silent)
        emit = (lambda text: self.stream(text)) if not silent else (lambda text: None)
        output = OutputFilter(emit)
        result = None
        try:
            for event in stream:
                kind = event.get("type")
                if kind == "execution-output":
                    output.write(event.get("text", ""))
                elif kind == "execution-end":
                    result = event.get("result")
                elif kind == "error":
                    output.finish()
                    return self.failed("AnalystError", event.get("message", "the cell could not run"), silent)
        except KeyboardInterrupt:
            stream.close()  # the hang-up cancels the cell in the sandbox
            output.finish()
            return self.failed("KeyboardInterrupt", "the cell was interrupted", silent)
        finally:
            stream.close()
        if result is None:
            output.finish()
            return self.failed("AnalystError", "the connection to Analyst ended before the cell did", silent)
        return self.finish(result, output, connection, thread, silent)

    def finish(self, result, output, connection, thread, silent):
        status = result.get("status")
        error = result.get("error")
        printed = "".join(error.get("traceback", [])) if status == "error" and error else ""
        output.finish(printed)
        if not result.get("output_complete", True) and not silent:
            self.stream(
                "\n[output truncated: the cell wrote %d bytes; only the first part is shown]\n"
                % result.get("output_bytes", 0),
                "stderr",
            )
        if not silent:
            for artifact in result.get("artifacts", []):
                self.show_image(connection, thread, artifact)
        if status == "ok":
            if result.get("message") and not silent:
                self.stream("[analyst] %s\n" % result["message"], "stderr")
            return self.ok()
        if status == "error" and error:
            traceback = [line for chunk in error.get("traceback", []) for line in chunk.rstrip("\n").split("\n")]
            return self.failed(error.get("name", "Error"), error.get("value", ""), silent, traceback)
        names = {
            "timeout": "TimeoutError",
            "cancelled": "KeyboardInterrupt",
            "killed": "SandboxKilled",
            "unavailable": "SandboxUnavailable",
            "error": "Error",
        }
        return self.failed(names.get(status, "Error"), result.get("message") or status, silent)

    def show_image(self, connection, thread, artifact):
        mime = (artifact.get("mime") or "").split(";")[0].strip()
        if mime not in IMAGE_TYPES or artifact.get("bytes", 0) > MAX_IMAGE_BYTES:
            return
        path = "/".join(quote(part) for part in artifact["path"].split("/"))
        data = connection.download("/v1/threads/%s/files/%s" % (thread, path), MAX_IMAGE_BYTES)
        if data is None:
            return
        self.send_response(
            self.iopub_socket,
            "display_data",
            {
                "data": {mime: base64.b64encode(data).decode("ascii"), "text/plain": "<%s>" % artifact["path"]},
                "metadata": {"analyst": {"path": artifact["path"], "change": artifact.get("change")}},
            },
        )

    def directive(self, line, silent):
        words = line.split()
        try:
            if len(words) == 3 and words[1] == "thread":
                self.target.attach(words[2])
                if not silent:
                    self.stream("[analyst] attached to thread %s\n" % words[2], "stderr")
                return None
            if len(words) == 2 and words[1] == "info":
                if not silent:
                    self.stream("%s\n" % self.target.describe())
                return None
            if len(words) == 2 and words[1] == "restart":
                connection, thread = self.target.ready()
                connection.request("POST", "/v1/threads/%s/sandbox/restart" % thread)
                if not silent:
                    self.stream("[analyst] the sandbox of thread %s was restarted\n" % thread, "stderr")
                return None
        except AnalystError as error:
            return self.failed("AnalystError", str(error), silent)
        return self.failed(
            "UsageError", "unknown directive %r: use %%analyst thread ID, %%analyst info or %%analyst restart" % line, silent
        )

    # ---- replies
    def stream(self, text, name="stdout"):
        if text:
            self.send_response(self.iopub_socket, "stream", {"name": name, "text": text})

    def ok(self):
        return {"status": "ok", "execution_count": self.execution_count, "payload": [], "user_expressions": {}}

    def failed(self, ename, evalue, silent, traceback=None):
        content = {"ename": ename, "evalue": evalue, "traceback": traceback or ["%s: %s" % (ename, evalue)]}
        if not silent:
            self.send_response(self.iopub_socket, "error", content)
        return {"status": "error", "execution_count": self.execution_count, **content}

    # ---- lifecycle
    def do_shutdown(self, restart):
        if restart and self.target.connection is not None and self.target.thread is not None:
            try:
                self.target.connection.request(
                    "POST", "/v1/threads/%s/sandbox/restart" % self.target.thread, timeout=20
                )
            except AnalystError as error:
                self.log.warning("could not restart the sandbox: %s", error)
        self.target.close()
        return {"status": "ok", "restart": restart}

    def do_is_complete(self, code):
        code = "\n".join(line for line in code.split("\n") if not line.strip().startswith("%analyst"))
        try:
            compile(code, "<cell>", "exec")
        except SyntaxError as error:
            if "unexpected EOF" in str(error) or "was never closed" in str(error):
                return {"status": "incomplete", "indent": ""}
            return {"status": "invalid"}
        return {"status": "complete"}


def quote(part):
    from urllib.parse import quote as _quote

    return _quote(part, safe="")


if __name__ == "__main__":
    from ipykernel.kernelapp import IPKernelApp

    IPKernelApp.launch_instance(kernel_class=AnalystKernel)
