# The authors' way of running a DS-1000 program, for `npm run bench -- eval`: a fresh python3
# per program (every library imported from scratch), in a new temporary working directory,
# passing when it exits 0. PROGRAM is defined by the line the bench puts before this file.
import subprocess
import sys
import tempfile

with tempfile.TemporaryDirectory(dir="/workspace") as cwd:
    with open(cwd + "/program.py", "w", encoding="utf-8") as f:
        f.write(PROGRAM)  # noqa: F821
    done = subprocess.run(
        [sys.executable, "program.py"],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
sys.stderr.write(done.stderr.decode("utf-8", "replace")[-4000:])
sys.exit(done.returncode)
