import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { findProgram, runCommand } from './system-commands.ts';

/** What a bind or unmount came to: `error` is the system's message, absent on success. */
export interface MountOutcome {
  error?: string;
}

// mount(2) and umount2(2) through libc, one JSON request a line: the helper stays up, so a
// bind costs a system call instead of a process started from the server (forking a large
// Node process and running util-linux mount took 13–29 ms here, for every thread's first cell).
const HELPER = `
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
MS_BIND, MNT_DETACH = 4096, 2
for line in sys.stdin:
    request = json.loads(line)
    target = request["target"].encode()
    if request["op"] == "bind":
        rc = libc.mount(request["source"].encode(), target, None, MS_BIND, None)
    else:
        rc = libc.umount2(target, MNT_DETACH if request.get("lazy") else 0)
    errno = ctypes.get_errno() if rc != 0 else 0
    reply = {"id": request["id"]}
    if errno:
        reply["error"] = os.strerror(errno)
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
`;

type Request =
  | { op: 'bind'; source: string; target: string }
  | { op: 'unmount'; target: string; lazy?: boolean };

/**
 * Bind mounts and unmounts for workspace slots, made by one long-lived helper process
 * (the host's python3 calling libc), or by the `mount` and `umount` programs where the host
 * has no python3 or the helper died. A bind keeps the source mount's flags (nosymfollow,
 * nosuid, nodev), as `mount --bind` does. Only the server (root) uses it; nothing of a
 * tenant's reaches it but paths the server made.
 */
export class MountCalls {
  private helper: ChildProcessWithoutNullStreams | undefined;
  private broken = false;
  private nextId = 0;
  /** Calls in flight: how to answer each, and how to make it without the helper. */
  private readonly pending = new Map<
    number,
    { resolve: (outcome: MountOutcome) => void; fallback: () => Promise<MountOutcome> }
  >();

  constructor(
    private readonly programs: { mount: string; umount: string; python?: string } = {
      mount: findProgram('mount') ?? 'mount',
      umount: findProgram('umount') ?? 'umount',
      python: findProgram('python3'),
    },
  ) {}

  bind(source: string, target: string): Promise<MountOutcome> {
    return this.call({ op: 'bind', source, target }, () =>
      runCommand(this.programs.mount, ['--bind', source, target]),
    );
  }

  /** `lazy`: detach now, free when no longer busy (umount -l). */
  unmount(target: string, lazy = false): Promise<MountOutcome> {
    return this.call({ op: 'unmount', target, lazy }, () =>
      runCommand(this.programs.umount, lazy ? ['-l', target] : [target]),
    );
  }

  /** Ends the helper; later calls start a new one. */
  close(): void {
    this.helper?.stdin.end();
    this.helper = undefined;
  }

  private async call(
    request: Request,
    program: () => Promise<{ code: number; stderr: string }>,
  ): Promise<MountOutcome> {
    const fallback = async () => {
      const result = await program();
      return result.code === 0 ? {} : { error: result.stderr || `exit code ${result.code}` };
    };
    const helper = this.started();
    if (!helper) return fallback();
    const id = this.nextId++;
    const outcome = new Promise<MountOutcome>((resolve) => this.pending.set(id, { resolve, fallback }));
    if (this.pending.size === 1) this.hold(helper, true);
    helper.stdin.write(`${JSON.stringify({ ...request, id })}\n`);
    return outcome;
  }

  /** Starts the helper now (its first call then does not wait for python3 to start). */
  start(): void {
    this.started();
  }

  private started(): ChildProcessWithoutNullStreams | undefined {
    if (this.helper || this.broken || !this.programs.python) return this.helper;
    const helper = spawn(this.programs.python, ['-I', '-S', '-c', HELPER], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { LANG: 'C' },
    });
    const fail = () => {
      if (this.helper === helper) this.helper = undefined;
      this.broken = true; // the programs from now on, also for the calls it left unanswered
      for (const { resolve, fallback } of this.pending.values()) void fallback().then(resolve);
      this.pending.clear();
    };
    helper.on('error', fail);
    helper.on('exit', fail);
    helper.stdin.on('error', () => {}); // reported by 'exit'
    helper.stderr.resume();
    createInterface({ input: helper.stdout }).on('line', (line) => {
      let reply: { id?: number; error?: string };
      try {
        reply = JSON.parse(line) as typeof reply;
      } catch {
        return;
      }
      const call = reply.id === undefined ? undefined : this.pending.get(reply.id);
      if (!call || reply.id === undefined) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.hold(helper, false);
      call.resolve(reply.error ? { error: reply.error } : {});
    });
    this.hold(helper, false);
    this.helper = helper;
    return helper;
  }

  /** An idle helper never keeps the process alive; one with calls in flight does. */
  private hold(helper: ChildProcessWithoutNullStreams, busy: boolean): void {
    for (const handle of [helper, helper.stdin, helper.stdout, helper.stderr] as Array<{
      ref?: () => void;
      unref?: () => void;
    }>)
      busy ? handle.ref?.() : handle.unref?.();
  }
}
