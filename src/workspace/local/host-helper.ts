import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { createInterface } from 'node:readline';

/** How a program ended: code 0 is success. */
export interface CommandResult {
  code: number;
  stderr: string;
}

/** What a bind or unmount came to: `error` is the system's message, absent on success. */
export interface MountOutcome {
  error?: string;
}

// One JSON request a line, answered in any order, each in a thread of its own. Starting a
// program from the server means forking the whole Node process, which blocks its event loop
// while the page tables are copied, twice for every new workspace (mkfs, mount). The helper
// is small, and its subprocess uses vfork. Binds, unmounts and loop mounts are ioctl(2),
// mount(2) and umount2(2) through libc: no program at all. The mount program scans every loop
// device for one on the same image (hundreds of them with hundreds of threads); a loop mount
// made here does not (docs/performance.md#host-helper).
const HELPER = `
import ctypes, errno as errnos, fcntl, json, os, struct, subprocess, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
MS_BIND, MNT_DETACH = 4096, 2
MOUNT_FLAGS = {"nosuid": 2, "nodev": 4, "noatime": 1024, "nosymfollow": 256}
LOOP_CTL_GET_FREE, LOOP_CONFIGURE, LO_FLAGS_AUTOCLEAR = 0x4C82, 0x4C0A, 4
lock = threading.Lock()
loop_lock = threading.Lock()

def check(rc):
    if rc != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))

def mount_loop(image, target, options):
    # What mount -o loop does: a free loop device, the image attached with autoclear (the
    # device goes with the last user: the filesystem's unmount, or this close on a failure).
    flags = 0
    for option in options:
        flags |= MOUNT_FLAGS[option]
    try:
        os.mkdir(target, 0o755)
    except FileExistsError:
        pass
    image_fd = os.open(image, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
    try:
        for _ in range(64):
            with loop_lock:
                control = os.open("/dev/loop-control", os.O_RDWR | os.O_CLOEXEC)
                try:
                    device = "/dev/loop%d" % fcntl.ioctl(control, LOOP_CTL_GET_FREE)
                finally:
                    os.close(control)
                device_fd = os.open(device, os.O_RDWR | os.O_CLOEXEC)
                # struct loop_config: fd, block_size, struct loop_info64 (lo_flags, lo_file_name
                # for losetup), reserved.
                info = struct.pack("=5Q4I64s64s32s2Q", 0, 0, 0, 0, 0, 0, 0, 0, LO_FLAGS_AUTOCLEAR,
                                   image.encode()[-63:], b"", b"", 0, 0)
                try:
                    fcntl.ioctl(device_fd, LOOP_CONFIGURE, struct.pack("=II", image_fd, 0) + info + bytes(64))
                except OSError as error:
                    os.close(device_fd)
                    if error.errno == errnos.EBUSY:
                        continue  # another process took this device first
                    raise
            try:
                check(libc.mount(device.encode(), target.encode(), b"ext4", flags, None))
            finally:
                os.close(device_fd)
            return
        raise OSError(errnos.EBUSY, "no free loop device")
    finally:
        os.close(image_fd)

def copy_sparse(source, target, max_bytes):
    # Only the data extents are copied (SEEK_DATA/SEEK_HOLE): the holes stay holes.
    src = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        dst = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            size = os.fstat(src).st_size
            os.ftruncate(dst, size)
            offset, copied = 0, 0
            while offset < size:
                try:
                    start = os.lseek(src, offset, os.SEEK_DATA)
                except OSError as error:
                    if error.errno == errnos.ENXIO:
                        break
                    raise
                end = os.lseek(src, start, os.SEEK_HOLE)
                copied += end - start
                if copied > max_bytes:
                    raise ValueError("more than %d bytes of data: not a sparse template" % max_bytes)
                while start < end:
                    chunk = os.pread(src, min(1 << 20, end - start), start)
                    if not chunk:
                        raise ValueError("the template shrank while it was copied")
                    os.pwrite(dst, chunk, start)
                    start += len(chunk)
                offset = end
        except BaseException:
            os.close(dst)
            os.unlink(target)
            raise
        os.close(dst)
    finally:
        os.close(src)

def answer(request):
    reply = {"id": request["id"]}
    try:
        if request["op"] == "run":
            done = subprocess.run(request["argv"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, env=request["env"], timeout=request["timeout_s"])
            code = done.returncode
            reply["code"] = code if code >= 0 else 128 - code
            reply["stderr"] = done.stderr[-65536:].decode("utf-8", "replace")
        elif request["op"] == "copy_sparse":
            copy_sparse(request["source"], request["target"], request["max_bytes"])
        elif request["op"] == "mount_loop":
            mount_loop(request["image"], request["target"], request["options"])
        else:
            target = request["target"].encode()
            if request["op"] == "bind":
                rc = libc.mount(request["source"].encode(), target, None, MS_BIND, None)
            else:
                rc = libc.umount2(target, MNT_DETACH if request.get("lazy") else 0)
            errno = ctypes.get_errno() if rc != 0 else 0
            if errno:
                reply["error"] = os.strerror(errno)
    except subprocess.TimeoutExpired:
        reply.update(code=124, stderr="timed out")
    except Exception as error:
        reply.update(code=127, stderr=str(error), error=str(error))
    with lock:
        sys.stdout.write(json.dumps(reply) + "\\n")
        sys.stdout.flush()

if len(sys.argv) > 1:
    os.nice(int(sys.argv[1]))
for line in sys.stdin:
    threading.Thread(target=answer, args=(json.loads(line),), daemon=True).start()
`;

type Request =
  | { op: 'bind'; source: string; target: string }
  | { op: 'unmount'; target: string; lazy?: boolean }
  | { op: 'run'; argv: string[]; env: Record<string, string>; timeout_s: number }
  | { op: 'copy_sparse'; source: string; target: string; max_bytes: number }
  | { op: 'mount_loop'; image: string; target: string; options: LoopMountOption[] };
type Reply = { id?: number; error?: string; code?: number; stderr?: string };

/** The mount options a loop mount may have (flags of mount(2)). */
export type LoopMountOption = 'nosuid' | 'nodev' | 'noatime' | 'nosymfollow';

export interface HostHelperPrograms {
  mount: string;
  umount: string;
  /** The host's python3; without it every call is made from this process. */
  python?: string;
  /** Starts a program from this process: the fallback. */
  spawnHere: (program: string, args: string[], timeoutMs: number) => Promise<CommandResult>;
  /**
   * The helper's CPU priority (nice, 0–19; default 0): work that may wait, such as making
   * spare workspaces, runs at 19 so that it takes only a core nothing else wants.
   */
  niceness?: number;
}

/**
 * The programs the server runs (mkfs.ext4, mount, umount) and the bind mounts of workspace
 * slots, through one long-lived helper process (the host's python3), or from this process
 * where the host has no python3 or the helper died. A bind keeps the source mount's flags
 * (nosymfollow, nosuid, nodev), as `mount --bind` does. Nothing of a tenant's reaches it
 * but paths and arguments the server made.
 */
export class HostHelper {
  private helper: ChildProcessWithoutNullStreams | undefined;
  private broken = false;
  private nextId = 0;
  /** Calls in flight: how to answer each, and how to make it without the helper. */
  private readonly pending = new Map<
    number,
    { resolve: (reply: Reply) => void; fallback: () => Promise<Reply> }
  >();

  constructor(private readonly programs: HostHelperPrograms) {}

  /** Runs `program` with `env` only, no shell, no input; its stderr is kept. */
  async run(
    program: string,
    args: string[],
    env: Record<string, string>,
    timeoutMs: number,
  ): Promise<CommandResult> {
    const reply = await this.call(
      { op: 'run', argv: [program, ...args], env, timeout_s: timeoutMs / 1000 },
      () => this.programs.spawnHere(program, args, timeoutMs),
    );
    return { code: reply.code ?? 1, stderr: (reply.stderr ?? reply.error ?? '').trim() };
  }

  async bind(source: string, target: string): Promise<MountOutcome> {
    const reply = await this.call({ op: 'bind', source, target }, () =>
      this.viaProgram(this.programs.mount, ['--bind', source, target]),
    );
    return reply.error ? { error: reply.error } : {};
  }

  /** `lazy`: detach now, free when no longer busy (umount -l). */
  async unmount(target: string, lazy = false): Promise<MountOutcome> {
    const reply = await this.call({ op: 'unmount', target, lazy }, () =>
      this.viaProgram(this.programs.umount, lazy ? ['-l', target] : [target]),
    );
    return reply.error ? { error: reply.error } : {};
  }

  /**
   * Mounts the ext4 filesystem in `image` on `target` (made if missing) through a loop device of its own,
   * detached when the filesystem is unmounted (as `mount -o loop`). Unlike the program, it
   * does not look for a loop device already on `image`: the caller makes sure nobody mounts
   * it twice.
   */
  async mountLoop(image: string, target: string, options: LoopMountOption[]): Promise<MountOutcome> {
    const reply = await this.call({ op: 'mount_loop', image, target, options }, async () => {
      try {
        await mkdir(target, { mode: 0o755 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return { error: (error as Error).message };
      }
      const program = ['-t', 'ext4', '-o', ['loop', ...options].join(','), image, target];
      return this.viaProgram(this.programs.mount, program);
    });
    return reply.error ? { error: reply.error } : {};
  }

  /**
   * Copies a sparse file's data extents to `target` (made, mode 0600; never a file already
   * there), keeping its holes; refuses a source with more than `maxBytes` of data. Without
   * the helper there is no such copy: the outcome is an error, and the caller does without.
   */
  async copySparse(source: string, target: string, maxBytes: number): Promise<MountOutcome> {
    const reply = await this.call({ op: 'copy_sparse', source, target, max_bytes: maxBytes }, async () => ({
      error: 'no host helper',
    }));
    return reply.error ? { error: reply.error } : {};
  }

  /** Starts the helper now (its first call then does not wait for python3 to start). */
  start(): void {
    this.started();
  }

  /** Ends the helper; later calls start a new one. */
  close(): void {
    this.helper?.stdin.end();
    this.helper = undefined;
  }

  private async viaProgram(program: string, args: string[]): Promise<Reply> {
    const result = await this.programs.spawnHere(program, args, 120_000);
    return result.code === 0 ? {} : { error: result.stderr || `exit code ${result.code}` };
  }

  private async call(request: Request, fallback: () => Promise<Reply>): Promise<Reply> {
    const helper = this.started();
    if (!helper) return fallback();
    const id = this.nextId++;
    const outcome = new Promise<Reply>((resolve) => this.pending.set(id, { resolve, fallback }));
    if (this.pending.size === 1) this.hold(helper, true);
    helper.stdin.write(`${JSON.stringify({ ...request, id })}\n`);
    return outcome;
  }

  private started(): ChildProcessWithoutNullStreams | undefined {
    if (this.helper || this.broken || !this.programs.python) return this.helper;
    const niceness = this.programs.niceness ? [String(this.programs.niceness)] : [];
    const helper = spawn(this.programs.python, ['-I', '-S', '-c', HELPER, ...niceness], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { LANG: 'C' },
    });
    const fail = () => {
      if (this.helper === helper) this.helper = undefined;
      this.broken = true; // from this process from now on, also the calls it left unanswered
      for (const { resolve, fallback } of this.pending.values()) void fallback().then(resolve);
      this.pending.clear();
    };
    helper.on('error', fail);
    helper.on('exit', fail);
    helper.stdin.on('error', () => {}); // reported by 'exit'
    helper.stderr.resume();
    createInterface({ input: helper.stdout }).on('line', (line) => {
      let reply: Reply;
      try {
        reply = JSON.parse(line) as Reply;
      } catch {
        return;
      }
      const call = reply.id === undefined ? undefined : this.pending.get(reply.id);
      if (!call || reply.id === undefined) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.hold(helper, false);
      call.resolve(reply);
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
