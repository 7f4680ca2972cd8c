import type { Duplex } from 'node:stream';
import { z } from 'zod';

/**
 * The host side of the kernel protocol (see kernel/protocol.py): frames
 * `u32 length | u8 type | payload` over the container's stdin and stdout, which
 * Docker multiplexes with stderr on an attach stream (8-byte headers).
 */

const KernelHelloSchema = z.object({
  python: z.string(),
  pid: z.number(),
  preloaded: z.record(z.string()).default({}),
});
export type KernelHello = z.infer<typeof KernelHelloSchema>;

const KernelEndSchema = z.object({
  id: z.string().nullable().optional(),
  status: z.enum(['ok', 'error', 'timeout', 'killed', 'cancelled']),
  exit_code: z.number().nullable(),
  signal: z.string().nullable().optional(),
  reason: z.string().nullable().optional(),
  state_lost: z.boolean().optional(),
  /** The cell's exception as data (cell.py `error_record`). */
  error: z
    .object({
      name: z.string(),
      value: z.string(),
      line: z.number().nullable().optional(),
      traceback: z.array(z.string()),
    })
    .optional(),
  /** Present when the workspace's filesystem (its quota) is full after the cell. */
  workspace_full: z.object({ bytes: z.number(), files: z.number() }).optional(),
  output_bytes: z.number(),
  output_complete: z.boolean(),
  duration_ms: z.number(),
  /** The cell's process's peak resident memory (absent when the process was already gone). */
  peak_memory_bytes: z.number().int().nonnegative().optional(),
  artifacts: z.array(
    z.object({
      path: z.string(),
      bytes: z.number(),
      mime: z.string(),
      change: z.enum(['created', 'modified']),
    }),
  ),
});
export type KernelEnd = z.infer<typeof KernelEndSchema>;

/** What the kernel needs to run one cell. */
export interface KernelRunRequest {
  id: string;
  code: string;
  /** Run before `code` in its namespace, compiled as `<analyst-prelude>` (see CellRequest). */
  prelude?: string;
  /** Run after `code` in its namespace, compiled as `<analyst-epilogue>`. */
  epilogue?: string;
  timeout_ms: number;
  max_output_bytes: number;
  max_file_bytes: number;
  stateful: boolean;
  /** Empty /workspace after the cell (task pools, whose /workspace is a tmpfs). */
  clear_workspace?: boolean;
}

/** A cell's end as seen by the host: the kernel's report plus the output it streamed. */
export interface KernelCellOutcome {
  end: KernelEnd;
  output: Buffer;
}

/** The channel ended before the cell did (kernel crash, container killed). */
export class KernelLostError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'KernelLostError';
  }
}

const MAX_FRAME_BYTES = 64 * 1024 * 1024;
const STDERR_KEPT_BYTES = 8192;

interface PendingCell {
  id: string;
  chunks: Buffer[];
  onOutput: ((chunk: Buffer) => void) | undefined;
  resolve: (outcome: KernelCellOutcome) => void;
  reject: (error: Error) => void;
}

export class KernelChannel {
  /** Resolves with the kernel's hello once its libraries are imported and a worker is warm. */
  readonly ready: Promise<KernelHello>;
  private resolveReady!: (hello: KernelHello) => void;
  private rejectReady!: (error: Error) => void;
  private demuxBuffer: Buffer = Buffer.alloc(0);
  private frameBuffer: Buffer = Buffer.alloc(0);
  private stderrTail = '';
  private pending: PendingCell | undefined;
  private closedError: KernelLostError | undefined;

  /**
   * @param stream the kernel's frames: Docker's multiplexed attach stream, or a plain socket
   * @param multiplexed whether `stream` carries Docker's 8-byte stdout/stderr headers
   */
  constructor(
    private readonly stream: Duplex,
    multiplexed = true,
  ) {
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => {});
    stream.on('data', (chunk: Buffer) => (multiplexed ? this.onData(chunk) : this.onStdout(chunk)));
    stream.on('end', () => this.fail('the sandbox kernel exited'));
    stream.on('close', () => this.fail('the sandbox kernel exited'));
    stream.on('error', (error) => this.fail(`the sandbox connection failed: ${error.message}`));
  }

  get closed(): boolean {
    return this.closedError !== undefined;
  }

  get busy(): boolean {
    return this.pending !== undefined;
  }

  /** The last bytes the kernel wrote to stderr, for diagnostics. */
  get stderr(): string {
    return this.stderrTail;
  }

  /** Sends one cell; resolves when the kernel reports its end. One cell at a time. */
  run(
    request: KernelRunRequest,
    data?: Buffer,
    onOutput?: (chunk: Buffer) => void,
  ): Promise<KernelCellOutcome> {
    if (this.closedError) return Promise.reject(this.closedError);
    if (this.pending) return Promise.reject(new Error('a cell is already running on this kernel'));
    return new Promise((resolve, reject) => {
      this.pending = { id: request.id, chunks: [], onOutput, resolve, reject };
      if (data) this.write('D', data);
      this.write('R', Buffer.from(JSON.stringify(request)));
    });
  }

  /** Asks the kernel to stop the running cell (it answers with an end frame). */
  cancel(id: string): void {
    if (!this.closedError) this.write('C', Buffer.from(JSON.stringify({ id })));
  }

  /** Ends the conversation; the kernel exits and the container with it. */
  close(): void {
    if (this.closedError) return;
    this.write('Q', Buffer.alloc(0));
    this.stream.end();
    this.fail('the sandbox kernel was closed');
  }

  private write(kind: string, payload: Buffer): void {
    const header = Buffer.alloc(5);
    header.writeUInt32BE(payload.length + 1, 0);
    header.writeUInt8(kind.charCodeAt(0), 4);
    // A write to a closing socket fails; the 'close' handler reports it to the caller.
    this.stream.write(payload.length > 0 ? Buffer.concat([header, payload]) : header);
  }

  /** Keeps the kernel's stderr from a Docker attach stream when frames travel elsewhere. */
  attachDiagnostics(stream: Duplex): void {
    let buffer: Buffer = Buffer.alloc(0);
    stream.on('data', (chunk: Buffer) => {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      while (buffer.length >= 8 && buffer.length >= 8 + buffer.readUInt32BE(4)) {
        const size = buffer.readUInt32BE(4);
        if (buffer[0] === 2) this.onStderr(buffer.subarray(8, 8 + size).toString('utf8'));
        buffer = buffer.subarray(8 + size);
      }
    });
    stream.on('error', () => {});
  }

  private onData(chunk: Buffer): void {
    this.demuxBuffer = this.demuxBuffer.length ? Buffer.concat([this.demuxBuffer, chunk]) : chunk;
    while (this.demuxBuffer.length >= 8) {
      const streamType = this.demuxBuffer[0];
      const size = this.demuxBuffer.readUInt32BE(4);
      if (this.demuxBuffer.length < 8 + size) break;
      const payload = this.demuxBuffer.subarray(8, 8 + size);
      this.demuxBuffer = this.demuxBuffer.subarray(8 + size);
      if (streamType === 1) this.onStdout(payload);
      else if (streamType === 2) this.onStderr(payload.toString('utf8'));
    }
  }

  private onStderr(text: string): void {
    this.stderrTail = (this.stderrTail + text).slice(-STDERR_KEPT_BYTES);
  }

  private onStdout(payload: Buffer): void {
    this.frameBuffer = this.frameBuffer.length ? Buffer.concat([this.frameBuffer, payload]) : payload;
    while (this.frameBuffer.length >= 5) {
      const length = this.frameBuffer.readUInt32BE(0);
      if (length < 1 || length > MAX_FRAME_BYTES) {
        this.fail(`the sandbox kernel sent a malformed frame (length ${length})`);
        this.stream.destroy();
        return;
      }
      if (this.frameBuffer.length < 4 + length) break;
      const kind = String.fromCharCode(this.frameBuffer[4]!);
      const body = this.frameBuffer.subarray(5, 4 + length);
      this.frameBuffer = this.frameBuffer.subarray(4 + length);
      this.onFrame(kind, body);
    }
  }

  private onFrame(kind: string, body: Buffer): void {
    switch (kind) {
      case 'Y': {
        const hello = KernelHelloSchema.safeParse(parseJson(body));
        if (hello.success) this.resolveReady(hello.data);
        else this.fail('the sandbox kernel sent an unreadable hello');
        return;
      }
      case 'O':
        if (this.pending) {
          const copy = Buffer.from(body);
          this.pending.chunks.push(copy);
          this.pending.onOutput?.(copy);
        }
        return;
      case 'E': {
        const end = KernelEndSchema.safeParse(parseJson(body));
        const pending = this.pending;
        if (!pending) return;
        this.pending = undefined;
        if (end.success) pending.resolve({ end: end.data, output: Buffer.concat(pending.chunks) });
        else
          pending.reject(
            new KernelLostError('the sandbox kernel sent an unreadable result', this.stderrTail),
          );
        return;
      }
      case 'L':
        this.onStderr(`[kernel] ${body.toString('utf8')}\n`);
        return;
      default:
        return;
    }
  }

  private fail(message: string): void {
    if (this.closedError) return;
    this.closedError = new KernelLostError(message, this.stderrTail);
    this.rejectReady(this.closedError);
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(this.closedError);
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
