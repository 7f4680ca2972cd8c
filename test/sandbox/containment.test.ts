import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import type { ExecResult } from '../../src/sandbox/sandbox.ts';
import { containersOfInstance, tempWorkspace, testSandbox } from '../helpers/sandbox.ts';

/**
 * One test per attack. Each asserts that the attack failed and that the next cell in the
 * same session still works.
 */
describe('containment', () => {
  let sandbox: DockerSandboxManager;
  let workspace: Awaited<ReturnType<typeof tempWorkspace>>;

  before(async () => {
    sandbox = await testSandbox();
    workspace = await tempWorkspace();
  });
  after(async () => {
    await sandbox.close();
    assert.deepEqual(await containersOfInstance(sandbox.instanceId), []);
    await workspace.cleanup();
  });

  /** Cell code starting `threads` daemon threads that append to `name` every millisecond. */
  const ticking = (name: string, threads: number) =>
    'import threading, time\n' +
    `def tick():\n    while True:\n        with open(${JSON.stringify(name)}, "a") as f:\n            f.write("x")\n        time.sleep(0.001)\n` +
    `for _ in range(${threads}):\n    threading.Thread(target=tick, daemon=True).start()\ntime.sleep(0.1)\n`;

  async function attack(code: string, timeoutMs?: number): Promise<ExecResult> {
    const id = `attack-${randomBytes(4).toString('hex')}`;
    try {
      const result = await sandbox.runCell({ id, workspace: workspace.ws }, { code, timeoutMs });
      const next = await sandbox.runCell({ id, workspace: workspace.ws }, { code: 'print("next cell ok")' });
      assert.equal(next.status, 'ok', `the cell after the attack failed: ${JSON.stringify(next)}`);
      assert.equal(next.output, 'next cell ok\n');
      return result;
    } finally {
      await sandbox.closeSession(id);
    }
  }

  test('DNS lookup fails', async () => {
    const result = await attack('import socket\nprint(socket.getaddrinfo("deb.debian.org", 80))');
    assert.equal(result.status, 'error');
    assert.match(result.output, /gaierror/);
  });

  test("TCP to the host's 127.0.0.1 does not reach the host", async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const result = await attack(
        `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${port}), timeout=2)\n    print("CONNECTED")\nexcept OSError as e:\n    print("refused", e.errno)`,
      );
      assert.doesNotMatch(result.output, /CONNECTED/);
      assert.match(result.output, /refused/);
      assert.equal(connections, 0);
    } finally {
      server.close();
    }
  });

  test('TCP to an outside address and to the Docker bridge fails', async () => {
    const result = await attack(
      'import socket\nfor host in ("1.1.1.1", "172.17.0.1", "10.0.0.1"):\n    try:\n        socket.create_connection((host, 80), timeout=2)\n        print("CONNECTED", host)\n    except OSError as e:\n        print("blocked", host, e.errno)',
    );
    assert.doesNotMatch(result.output, /CONNECTED/);
    assert.equal(result.output.match(/blocked/g)?.length, 3);
  });

  test('UDP cannot leave', async () => {
    const result = await attack(
      'import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ntry:\n    s.sendto(b"x", ("8.8.8.8", 53))\n    print("SENT")\nexcept OSError as e:\n    print("blocked", e.errno)',
    );
    assert.match(result.output, /blocked 101/); // ENETUNREACH: there is no route at all
  });

  test('only loopback exists: no other network interface', async () => {
    const result = await attack('import os\nprint(sorted(os.listdir("/sys/class/net")))');
    assert.equal(result.output.trim(), "['lo']");
  });

  test('writing outside /workspace and /tmp fails', async () => {
    const result = await attack(
      'for path in ("/etc/evil", "/usr/lib/evil", "/evil", "/root/evil", "/var/evil"):\n    try:\n        open(path, "w").write("x")\n        print("WROTE", path)\n    except OSError as e:\n        print("denied", path, e.errno)',
    );
    assert.doesNotMatch(result.output, /WROTE/);
    assert.equal(result.output.match(/denied/g)?.length, 5);
  });

  test('host files and host processes are invisible', async () => {
    const marker = join(tmpdir(), `analyst-host-secret-${randomBytes(4).toString('hex')}`);
    await writeFile(marker, 'host secret');
    try {
      const result = await attack(
        `import os\nprint("marker", os.path.exists(${JSON.stringify(marker)}))\n` +
          'cmds = []\nfor pid in os.listdir("/proc"):\n    if pid.isdigit():\n        try:\n            cmds.append(open(f"/proc/{pid}/cmdline","rb").read().split(b"\\0")[0].decode())\n        except OSError:\n            pass\n' +
          'print("processes", len(cmds))\nprint("host", any("node" in c or "dockerd" in c or "containerd" in c for c in cmds))\n' +
          'print("hostname", open("/etc/hostname").read().strip())',
      );
      assert.match(result.output, /marker False/);
      assert.match(result.output, /host False/);
      const count = Number(/processes (\d+)/.exec(result.output)?.[1]);
      assert.ok(count > 0 && count < 10, `saw ${count} processes`);
    } finally {
      await rm(marker, { force: true });
    }
  });

  test('there is no Docker socket inside', async () => {
    const result = await attack(
      'import os, stat\nfound = []\nfor top in ("/var/run", "/run", "/tmp", "/workspace", "/"):\n    for root, dirs, files in os.walk(top):\n        if root.startswith("/proc") or root.startswith("/sys"):\n            dirs[:] = []\n            continue\n        for name in files:\n            p = os.path.join(root, name)\n            try:\n                if stat.S_ISSOCK(os.lstat(p).st_mode):\n                    found.append(p)\n            except OSError:\n                pass\n        if top == "/":\n            dirs[:] = [d for d in dirs if d in ("var", "run", "srv", "opt", "home")]\nprint("sockets", found)\nprint("docker.sock", os.path.exists("/var/run/docker.sock"), os.path.exists("/run/docker.sock"))',
    );
    assert.match(result.output, /sockets \[\]/);
    assert.match(result.output, /docker\.sock False False/);
  });

  test('runs as 65534:65534 with no capabilities and no new privileges', async () => {
    const result = await attack(
      'import os\nprint(os.getuid(), os.geteuid(), os.getgid(), os.getegid(), os.getgroups())\nfor line in open("/proc/self/status"):\n    if line.startswith(("Cap", "NoNewPrivs", "Seccomp:")):\n        print(line.strip())',
    );
    assert.match(result.output, /^65534 65534 65534 65534 \[(65534)?\]/);
    for (const cap of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) {
      assert.match(result.output, new RegExp(`${cap}:\\s+0000000000000000`));
    }
    assert.match(result.output, /NoNewPrivs:\s+1/);
    assert.match(result.output, /Seccomp:\s+2/); // filter mode: the default seccomp profile is on
  });

  test('setuid does nothing', async () => {
    const result = await attack(
      'import os, subprocess\ntry:\n    os.setuid(0)\n    print("BECAME ROOT")\nexcept PermissionError:\n    print("setuid refused")\n' +
        'import stat\nsuid = [p for p in ("/usr/bin/mount", "/bin/mount", "/usr/bin/su", "/usr/bin/passwd") if os.path.exists(p) and os.stat(p).st_mode & stat.S_ISUID]\nprint("suid binaries", suid)\n' +
        'for p in suid:\n    r = subprocess.run([p, "-t", "tmpfs", "none", "/tmp"] if "mount" in p else [p, "-c", "id -u"], capture_output=True, text=True, stdin=subprocess.DEVNULL)\n    print("ran", p, r.returncode, (r.stdout + r.stderr).strip()[:80])',
    );
    assert.match(result.output, /setuid refused/);
    assert.doesNotMatch(result.output, /BECAME ROOT/);
    assert.match(result.output, /suid binaries \['/, 'the image should contain a setuid binary to test with');
    for (const line of result.output.split('\n').filter((l) => l.startsWith('ran '))) {
      assert.doesNotMatch(line, / 0 /, `a setuid binary succeeded: ${line}`);
      assert.doesNotMatch(line, /^ran \S+ \d+ 0$/);
    }
  });

  test('a fork bomb is held at 64 processes', async () => {
    const result = await attack(
      'import os, time\nchildren = 0\ntry:\n    while True:\n        pid = os.fork()\n        if pid == 0:\n            time.sleep(60)\n            os._exit(0)\n        children += 1\nexcept OSError as e:\n    print("fork stopped after", children, "errno", e.errno)',
      10_000,
    );
    const children = Number(/fork stopped after (\d+)/.exec(result.output)?.[1]);
    assert.ok(children > 10 && children < 64, `forked ${children} children`);
    assert.match(result.output, /errno 11/);
  });

  test('a recursive fork bomb is stopped at the timeout', async () => {
    const result = await attack(
      'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass',
      3000,
    );
    assert.equal(result.status, 'timeout');
  });

  test('a memory bomb is killed and reported as such', async () => {
    const result = await attack(
      'chunks = []\nwhile True:\n    chunks.append(b"x" * (16 * 1024 * 1024))',
      20_000,
    );
    assert.equal(result.status, 'killed');
    assert.match(result.message!, /memory limit \(512 MB\)/);
  });

  test('a CPU spin is stopped at the timeout', async () => {
    const started = Date.now();
    const result = await attack('while True:\n    pass', 2000);
    assert.equal(result.status, 'timeout');
    assert.equal(result.exit_code, null);
    assert.match(result.message!, /2 s limit/);
    assert.ok(Date.now() - started < 8000);
  });

  test('time.sleep(100) is stopped at the timeout', async () => {
    const result = await attack('import time\nprint("sleeping", flush=True)\ntime.sleep(100)', 1000);
    assert.equal(result.status, 'timeout');
    assert.equal(result.output, 'sleeping\n');
    assert.ok(result.duration_ms >= 1000 && result.duration_ms < 3000, `took ${result.duration_ms} ms`);
  });

  test('background processes started by a cell do not outlive it', async () => {
    const id = `bg-${randomBytes(4).toString('hex')}`;
    try {
      const started = await sandbox.runCell(
        { id, workspace: workspace.ws },
        {
          code:
            'import subprocess, os\nsubprocess.Popen(["sleep", "1000"])\n' +
            'subprocess.Popen(["python3", "-c", "import os,time\\nos.setsid()\\nif os.fork(): os._exit(0)\\ntime.sleep(1000)  # bg-marker"])\nprint("started")',
        },
      );
      assert.equal(started.status, 'ok');
      const check = await sandbox.runCell(
        { id, workspace: workspace.ws },
        {
          code: 'import os\nleft = []\nfor pid in os.listdir("/proc"):\n    if pid.isdigit():\n        try:\n            cmd = open(f"/proc/{pid}/cmdline","rb").read()\n        except OSError:\n            continue\n        if cmd.split(b"\\0")[0] == b"sleep" or b"bg-marker" in cmd:\n            left.append(cmd)\nprint("left", left)',
        },
      );
      assert.equal(check.output.trim(), 'left []');
    } finally {
      await sandbox.closeSession(id);
    }
  });

  test('threads a stateless cell leaves running never write once its end is reported, and its worker is gone', async () => {
    const id = `threads-${randomBytes(4).toString('hex')}`;
    const name = `ticks-${id}.txt`;
    try {
      const started = await sandbox.runCell(
        { id, workspace: workspace.ws },
        {
          code: `${ticking(name, 3)}import os\nprint("ticking", os.getpid())`,
        },
      );
      const spent = /^ticking (\d+)\n$/.exec(started.output)?.[1];
      assert.ok(spent, started.output);
      const size = async () => (await workspace.ws.stat(name))?.bytes ?? 0;
      const atEnd = await size();
      assert.ok(atEnd > 0, 'the threads never wrote');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(await size(), atEnd, 'a thread wrote after the cell ended');
      // Beside the kernel (pid 1, which may not have gone back to sleep yet on the one CPU), the
      // next cell sees the zygote sleeping, the spare worker stopped while a cell runs, and
      // itself: the spent worker was killed, not left stopped, and its threads went with it.
      const check = await sandbox.runCell(
        { id, workspace: workspace.ws },
        {
          code:
            'import os\nothers = []\nfor pid in os.listdir("/proc"):\n    if pid.isdigit() and int(pid) not in (1, os.getpid()):\n        try:\n            others.append(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0])\n        except OSError:\n            pass\n' +
            `print(sorted(others), os.path.exists("/proc/${spent}"), os.path.getsize(${JSON.stringify(name)}))`,
        },
      );
      assert.equal(check.output, `['S', 'T'] False ${atEnd}\n`);
      assert.equal(await size(), atEnd);
    } finally {
      await sandbox.closeSession(id);
      await rm(join(workspace.dir, name), { force: true });
    }
  });

  test('a helper process that keeps continuing the stopped worker cannot let its threads write on', async () => {
    const id = `cont-${randomBytes(4).toString('hex')}`;
    const name = `cont-${id}.txt`;
    try {
      const started = await sandbox.runCell(
        { id, workspace: workspace.ws },
        {
          code:
            'import os, signal\nworker = os.getpid()\n' +
            'if os.fork() == 0:\n    os.setsid()\n    while True:\n        try:\n            os.kill(worker, signal.SIGCONT)\n        except OSError:\n            os._exit(0)\n' +
            `${ticking(name, 1)}print("ticking")`,
        },
      );
      assert.equal(started.output, 'ticking\n');
      const size = async () => (await workspace.ws.stat(name))?.bytes ?? 0;
      const atEnd = await size();
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(await size(), atEnd, 'a thread wrote after the cell ended');
    } finally {
      await sandbox.closeSession(id);
      await rm(join(workspace.dir, name), { force: true });
    }
  });

  test('zombies left by a cell are reaped', async () => {
    const id = `zombie-${randomBytes(4).toString('hex')}`;
    try {
      await sandbox.runCell(
        { id, workspace: workspace.ws },
        {
          code: 'import subprocess\nfor _ in range(5):\n    subprocess.Popen(["true"])\nprint("left unwaited")',
        },
      );
      const check = await sandbox.runCell(
        { id, workspace: workspace.ws },
        {
          code: 'import os\nzombies = 0\nfor pid in os.listdir("/proc"):\n    if pid.isdigit():\n        try:\n            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]\n        except OSError:\n            continue\n        zombies += state == "Z"\nprint("zombies", zombies)',
        },
      );
      assert.equal(check.output, 'zombies 0\n');
    } finally {
      await sandbox.closeSession(id);
    }
  });

  test('a cell cannot signal the kernel (PID 1)', async () => {
    const result = await attack(
      'import os, signal\nfor sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGTERM):\n    os.kill(1, sig)\nprint("sent")',
    );
    assert.equal(result.output, 'sent\n');
  });

  test('100 MB of output is capped at 40,000 bytes and marked incomplete', async () => {
    const result = await attack(
      'import sys\nblock = "x" * (1024 * 1024)\nfor i in range(100):\n    sys.stdout.write(block)',
      30_000,
    );
    assert.equal(result.status, 'ok');
    assert.equal(result.output_bytes, 100 * 1024 * 1024);
    assert.equal(result.output_complete, false);
    assert.ok(result.output.startsWith('x'.repeat(40_000)));
    assert.ok(Buffer.byteLength(result.output) < 40_200);
    assert.match(result.output, /output truncated: the cell wrote 104857600 bytes/);
  });

  test('one 10 MB line is capped', async () => {
    const result = await attack('print("y" * 10_000_000)');
    assert.equal(result.output_bytes, 10_000_001);
    assert.equal(result.output_complete, false);
    assert.ok(result.output.startsWith('y'.repeat(40_000)));
  });

  test('binary output is reported as text with replacement characters', async () => {
    const result = await attack('import sys\nsys.stdout.buffer.write(bytes(range(256)))\nsys.stdout.flush()');
    assert.equal(result.status, 'ok');
    assert.equal(result.output_bytes, 256);
    assert.ok(result.output.includes('\ufffd'));
  });

  test('filling /tmp fails with ENOSPC and does not break later cells', async () => {
    const result = await attack(
      'import os\nwritten = 0\ntry:\n    with open("/tmp/fill", "wb") as f:\n        while True:\n            f.write(b"z" * (1024 * 1024))\n            f.flush()\n            written += 1\nexcept OSError as e:\n    print("stopped at", written, "MB errno", e.errno)',
    );
    assert.match(result.output, /errno 28/);
    const mb = Number(/stopped at (\d+)/.exec(result.output)?.[1]);
    assert.ok(mb <= 64, `wrote ${mb} MB to /tmp`);
  });

  test('os._exit, sys.exit(3) and killing itself are reported with their status', async () => {
    const exited = await attack('import os\nprint("bye", flush=True)\nos._exit(5)');
    assert.equal(exited.status, 'error');
    assert.equal(exited.exit_code, 5);
    assert.equal(exited.output, 'bye\n');
    const sysExit = await attack('import sys\nsys.exit(3)');
    assert.equal(sysExit.status, 'error');
    assert.equal(sysExit.exit_code, 3);
    const killed = await attack('import os, signal\nos.kill(os.getpid(), signal.SIGKILL)');
    assert.equal(killed.status, 'killed');
    assert.match(killed.message!, /SIGKILL/);
  });

  test('closing stdout and stderr cannot break the host channel', async () => {
    const result = await attack(
      'import os, sys\nprint("before", flush=True)\nos.close(1)\nos.close(2)\nprint("after")',
    );
    assert.equal(result.status, 'error');
    assert.equal(result.output, 'before\n');
  });

  test('writing frame-like bytes to fd 1 directly is plain output', async () => {
    const result = await attack(
      'import os, struct\nos.write(1, struct.pack(">IB", 6, 69) + b"{bad}")\nos.write(1, b"\\ndirect\\n")\nos.write(2, b"err\\n")',
    );
    assert.equal(result.status, 'ok');
    assert.ok(result.output.endsWith('\ndirect\nerr\n'));
  });

  test("a cell cannot reach the kernel's file descriptors", async () => {
    const result = await attack(
      'import os\nfor pid in os.listdir("/proc"):\n    if pid.isdigit() and int(pid) not in (1, os.getpid()):\n        try:\n            os.listdir(f"/proc/{pid}/fd")\n            print("OPENED", pid)\n        except OSError:\n            pass\nprint("done")',
    );
    assert.equal(result.output.trim(), 'done');
  });

  test('infinite recursion is an ordinary Python error', async () => {
    const result = await attack('def f():\n    return f()\nf()');
    assert.equal(result.status, 'error');
    assert.match(result.output, /RecursionError/);
  });

  test('a symlink to /etc/passwd in the workspace is never followed by the host', async () => {
    const link = join(workspace.dir, `passwd-${randomBytes(3).toString('hex')}`);
    await symlink('/etc/passwd', link);
    try {
      const result = await attack(
        `import os\nos.symlink("/etc/shadow", "cell-link")\nopen("real.txt", "w").write("ok")\nprint(os.path.islink(${JSON.stringify(link.split('/').pop())}))`,
      );
      const paths = result.artifacts.map((a) => a.path);
      assert.ok(paths.includes('real.txt'));
      assert.ok(
        !paths.some((p) => p.includes('link') || p.includes('passwd')),
        `symlinks reported: ${paths}`,
      );
      await assert.rejects(workspace.ws.open(link.split('/').pop()!), /symlink/);
      await assert.rejects(workspace.ws.open('cell-link'), /symlink/);
      assert.ok((await readdir(workspace.dir)).includes('cell-link'));
    } finally {
      await rm(link, { force: true });
      await rm(join(workspace.dir, 'cell-link'), { force: true });
    }
  });

  test('an ephemeral sandbox sees no host workspace and leaves nothing behind', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'analyst-eph-'));
    try {
      const result = await sandbox.runEphemeral({
        code: 'import os\nprint(sorted(os.listdir("/workspace")))\nopen("/workspace/out.txt", "w").write("x")',
      });
      assert.equal(result.status, 'ok');
      assert.equal(result.output.trim(), '[]');
      assert.deepEqual(
        result.artifacts.map((a) => a.path),
        ['out.txt'],
      );
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
