"""How the Analyst Jupyter kernel reaches Analyst: over its HTTP API (standard library only).

A kernel works on one thread of a running server (the thread exec API, streamed as SSE), or,
when it was installed without a server, on a server of its own that it starts as a child
process (`analyst jupyter backend`) and that ends with it.
"""

import http.client
import json
import os
import subprocess
import sys
import threading
import urllib.parse


class AnalystError(Exception):
    """Something between the kernel and Analyst failed (not the cell: that is a result)."""


class Connection:
    """The HTTP API of one Analyst server, with one API key."""

    def __init__(self, url, api_key=None):
        parsed = urllib.parse.urlsplit(url.rstrip("/"))
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise AnalystError("the Analyst URL %r is not an http(s) URL, like http://127.0.0.1:8200" % (url,))
        self.url = url.rstrip("/")
        self.scheme = parsed.scheme
        self.host = parsed.hostname
        self.port = parsed.port
        self.prefix = parsed.path
        self.api_key = api_key

    def _connection(self, timeout):
        cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        return cls(self.host, self.port, timeout=timeout)

    def _headers(self, extra=None):
        headers = {"accept": "application/json"}
        if self.api_key:
            headers["authorization"] = "Bearer " + self.api_key
        headers.update(extra or {})
        return headers

    def request(self, method, path, body=None, timeout=60):
        """One JSON request; AnalystError with the server's own message on a non-2xx answer."""
        connection = self._connection(timeout)
        try:
            payload = None if body is None else json.dumps(body).encode()
            headers = self._headers({"content-type": "application/json"} if payload is not None else None)
            connection.request(method, self.prefix + path, body=payload, headers=headers)
            response = connection.getresponse()
            data = response.read()
        except OSError as error:
            raise AnalystError("cannot reach Analyst at %s: %s" % (self.url, error)) from error
        finally:
            connection.close()
        if response.status >= 400:
            raise AnalystError(error_message(response.status, data))
        return json.loads(data) if data else None

    def download(self, path, max_bytes):
        """The bytes of a GET (a workspace file), or None when it is missing or too large."""
        connection = self._connection(60)
        try:
            connection.request("GET", self.prefix + path, headers=self._headers({"accept": "*/*"}))
            response = connection.getresponse()
            length = int(response.getheader("content-length") or "0")
            if response.status != 200 or length > max_bytes:
                return None
            return response.read(max_bytes + 1)[:max_bytes]
        except OSError:
            return None
        finally:
            connection.close()

    def exec_stream(self, thread_id, code, stateful, timeout_s):
        """Starts a cell in the thread's sandbox; returns an ExecStream of its events."""
        body = {"code": code, "stateful": stateful, "stream": True}
        if timeout_s is not None:
            body["timeout"] = timeout_s
        connection = self._connection(None)
        try:
            connection.request(
                "POST",
                "%s/v1/threads/%s/exec" % (self.prefix, urllib.parse.quote(thread_id)),
                body=json.dumps(body).encode(),
                headers=self._headers({"content-type": "application/json", "accept": "text/event-stream"}),
            )
            response = connection.getresponse()
        except OSError as error:
            connection.close()
            raise AnalystError("cannot reach Analyst at %s: %s" % (self.url, error)) from error
        if response.status >= 400:
            data = response.read()
            connection.close()
            raise AnalystError(error_message(response.status, data))
        return ExecStream(connection, response)


class ExecStream:
    """The SSE events of one streamed cell. Closing it hangs up, which cancels the cell."""

    def __init__(self, connection, response):
        self.connection = connection
        self.response = response

    def __iter__(self):
        data = []
        while True:
            line = self.response.readline()
            if not line:
                return
            line = line.decode("utf-8", "replace").rstrip("\r\n")
            if line == "":
                if data:
                    yield json.loads("\n".join(data))
                    data = []
            elif line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
            # comments (": keep-alive") and other fields are ignored

    def close(self):
        try:
            if self.connection.sock is not None:
                self.connection.sock.shutdown(2)
        except OSError:
            pass
        self.connection.close()


def error_message(status, data):
    """OpenAI's error shape, read for its message."""
    try:
        message = json.loads(data)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = data[:500].decode("utf-8", "replace")
    return "Analyst answered %d: %s" % (status, message)


class OwnServer:
    """A private Analyst server (`analyst jupyter backend`) for a kernel installed without one."""

    def __init__(self, node, cli):
        self.process = None
        self.info = None
        self.failure = None
        self.stderr_tail = []
        self.ready = threading.Event()
        self.node, self.cli = node, cli
        threading.Thread(target=self._start, daemon=True).start()

    def _start(self):
        try:
            # stdin stays open for the kernel's life: the server stops when it closes. Its own
            # session, because Jupyter interrupts a kernel by signalling its process group.
            self.process = subprocess.Popen(
                [self.node, self.cli, "jupyter", "backend"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            threading.Thread(target=self._read_stderr, daemon=True).start()
            line = self.process.stdout.readline()
            if not line:
                self.process.wait()
                raise AnalystError(
                    "the kernel's own Analyst server did not start: %s" % ("".join(self.stderr_tail).strip()[-800:],)
                )
            self.info = json.loads(line)
        except (OSError, ValueError, AnalystError) as error:
            self.failure = str(error)
        finally:
            self.ready.set()

    def _read_stderr(self):
        for raw in self.process.stderr:
            text = raw.decode("utf-8", "replace")
            self.stderr_tail = (self.stderr_tail + [text])[-40:]
            sys.stderr.write(text)

    def wait(self, timeout=180):
        if not self.ready.wait(timeout):
            raise AnalystError("the kernel's own Analyst server did not start within %d s" % timeout)
        if self.failure:
            raise AnalystError(self.failure)
        return self.info

    def close(self):
        process = self.process
        if process is None or process.poll() is not None:
            return
        try:
            process.stdin.close()
            process.wait(timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()


def settings_from_env(env=os.environ):
    """What kernel.json (`analyst jupyter install`) configured."""
    timeout = env.get("ANALYST_KERNEL_TIMEOUT", "").strip()
    return {
        "url": env.get("ANALYST_KERNEL_URL") or None,
        "api_key": env.get("ANALYST_KERNEL_API_KEY") or env.get("ANALYST_API_KEY") or None,
        "thread": env.get("ANALYST_KERNEL_THREAD") or None,
        "stateful": env.get("ANALYST_KERNEL_STATEFUL", "1") not in ("0", "false", "no"),
        "timeout": float(timeout) if timeout else None,
        "node": env.get("ANALYST_KERNEL_NODE") or "node",
        "cli": env.get("ANALYST_KERNEL_CLI"),
    }
