"""Drives the installed `analyst` kernel with jupyter_client, as a notebook front end would,
and prints what it saw as one JSON object (the TypeScript test makes the assertions).

Run with Debian's Python (python3-jupyter-client) and JUPYTER_DATA_DIR naming the folder the
kernelspec was installed into.
"""

import json
import sys
import time

from jupyter_client.manager import start_new_kernel


def main(scenario):
    km, kc = start_new_kernel(kernel_name="analyst", startup_timeout=180)
    report = {}

    def run(code, timeout=180, on_busy=None):
        started = time.monotonic()
        # stop_on_error=False: the error cell must not abort the cells sent right after it.
        msg_id = kc.execute(code, stop_on_error=False)
        messages = []
        busy_seen = False
        while True:
            message = kc.get_iopub_msg(timeout=timeout)
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            kind = message["msg_type"]
            content = message["content"]
            if kind == "status" and content["execution_state"] == "busy" and on_busy and not busy_seen:
                busy_seen = True
                on_busy()
            entry = {"type": kind, "at": round(time.monotonic() - started, 3)}
            if kind == "stream":
                entry.update(name=content["name"], text=content["text"])
            elif kind == "error":
                entry.update(ename=content["ename"], evalue=content["evalue"], traceback=content["traceback"])
            elif kind == "display_data":
                entry.update(mimes=sorted(content["data"]), png=content["data"].get("image/png", "")[:16])
            elif kind == "status":
                entry.update(state=content["execution_state"])
                if content["execution_state"] == "idle":
                    messages.append(entry)
                    break
            messages.append(entry)
        while True:
            reply = kc.get_shell_msg(timeout=timeout)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        return {
            "messages": messages,
            "status": reply["content"]["status"],
            "ename": reply["content"].get("ename"),
            "seconds": round(time.monotonic() - started, 3),
        }

    try:
        report["order"] = run(
            'import sys\nprint("one", flush=True)\nsys.stderr.write("two\\n")\nprint("three")\nx = 41'
        )
        report["state"] = run("print(x + 1)")
        if scenario == "quick":
            report["figure"] = run("import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])")
            return
        report["error"] = run('print("before")\ndef f():\n    return 1 / 0\nf()')
        report["figure"] = run("import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])")
        report["streaming"] = run('import time\nfor i in range(3):\n    print("tick", i, flush=True)\n    time.sleep(1)')

        interrupted = {}

        def interrupt_soon():
            time.sleep(1.5)
            interrupted["at"] = time.monotonic()
            km.interrupt_kernel()

        import threading

        def on_busy():
            threading.Thread(target=interrupt_soon, daemon=True).start()

        report["interrupt"] = run("import time\ntime.sleep(100)", on_busy=on_busy)
        report["interrupt"]["reply_after_interrupt"] = round(time.monotonic() - interrupted["at"], 3)
        report["after_interrupt"] = run("print(x)")

        km.restart_kernel(now=False)
        kc.wait_for_ready(timeout=180)
        report["after_restart"] = run("print(x)")
        report["after_restart_ok"] = run('print("fresh")')
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
        json.dump(report, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "full")
