import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { ConfigurationError, NotFoundError } from '../../errors/index.ts';
import { WorkspaceUnavailableError } from '../errors/workspace-unavailable-error.ts';
import { LocalWorkspace } from '../local/local-workspace.ts';
import { mountPoints } from '../local/system-commands.ts';
import type { Workspace, WorkspaceStore } from '../workspace.ts';
import { type HelperAnswer, HelperAnswerSchema, type HelperCall } from './protocol.ts';

export interface HelperStoreOptions {
  /** The helper's socket (ANALYST_WORKSPACE_HELPER). */
  socketPath: string;
  /** Where the helper mounts workspaces, as this process sees it (`<data dir>/workspaces`). */
  root: string;
  /** How long a call may take (mkfs of a large quota is the slow one). Default 120 s. */
  timeoutMs?: number;
}

/**
 * Loop-mounted workspaces for a server that is not root (the container set-up): the root
 * helper (`analyst workspace-helper`) makes and mounts each filesystem; this store asks it
 * over its socket, then checks that the mount is really there in this process's view before
 * any file is written — a data directory bind-mounted without mount propagation would
 * otherwise show the empty directory under the mount, which is not safe to hand to a cell.
 */
export class HelperWorkspaceStore implements WorkspaceStore {
  readonly kind = 'loop-ext4 (workspace helper)';
  private socket: Socket | undefined;
  private connecting: Promise<Socket> | undefined;
  private nextId = 1;
  private buffer = '';
  private readonly waiting = new Map<number, (answer: HelperAnswer) => void>();

  private constructor(private readonly options: HelperStoreOptions) {}

  /**
   * A store on the helper, with a rehearsal: one workspace is made, seen mounted here and
   * destroyed. ConfigurationError says what is wrong and how to fix it.
   */
  static async connect(options: HelperStoreOptions): Promise<HelperWorkspaceStore> {
    const store = new HelperWorkspaceStore(options);
    try {
      await store.call({ op: 'ping' });
    } catch (error) {
      await store.close();
      throw new ConfigurationError(
        `cannot reach the workspace helper at ${options.socketPath} (ANALYST_WORKSPACE_HELPER): ${(error as Error).message}. ` +
          'Start it (the `workspaces` service of compose-python.yaml), or unset ANALYST_WORKSPACE_HELPER',
      );
    }
    try {
      const probe = await store.create();
      await store.destroy(probe.id);
    } catch (error) {
      await store.close();
      throw new ConfigurationError(
        `the workspace helper cannot make workspaces: ${(error as Error).message}`,
      );
    }
    return store;
  }

  async create(): Promise<Workspace> {
    const answer = await this.call({ op: 'create' });
    const id = answer.workspace;
    if (!id || !/^ws-[0-9a-f]{24}$/.test(id))
      throw new WorkspaceUnavailableError('the workspace helper answered create without a workspace id');
    try {
      return await this.mounted(id);
    } catch (error) {
      // Not usable here: do not leave it mounted on the helper's side.
      await this.destroy(id).catch(() => {});
      throw error;
    }
  }

  async open(id: string): Promise<Workspace> {
    if (!/^ws-[0-9a-f]{24}$/.test(id)) throw new NotFoundError(`no workspace ${JSON.stringify(id)}`);
    await this.call({ op: 'open', workspace: id });
    return this.mounted(id);
  }

  async destroy(id: string): Promise<void> {
    if (!/^ws-[0-9a-f]{24}$/.test(id)) return;
    await this.call({ op: 'destroy', workspace: id });
  }

  async close(): Promise<void> {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private async mounted(id: string): Promise<Workspace> {
    const path = join(this.options.root, id);
    if (!(await mountPoints()).has(path)) {
      throw new WorkspaceUnavailableError(
        `the workspace helper mounted ${id}, but this server does not see the mount at ${path}: bind-mount the data ` +
          'directory into the app with propagation rslave (and into the helper with rshared), as compose-python.yaml does',
      );
    }
    return new LocalWorkspace(id, path, 'filesystem');
  }

  private async call(request: HelperCall): Promise<HelperAnswer & { ok: true }> {
    const socket = await this.connection();
    const id = this.nextId++;
    const answer = await new Promise<HelperAnswer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new WorkspaceUnavailableError(`the workspace helper did not answer ${request.op} in time`));
      }, this.options.timeoutMs ?? 120_000);
      this.waiting.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      socket.write(`${JSON.stringify({ ...request, id })}\n`);
    });
    if (!answer.ok) {
      if (answer.error.code === 'not_found') throw new NotFoundError(answer.error.message);
      throw new WorkspaceUnavailableError(
        `the workspace helper could not ${request.op}: ${answer.error.message}`,
      );
    }
    return answer;
  }

  private connection(): Promise<Socket> {
    if (this.socket && !this.socket.destroyed) return Promise.resolve(this.socket);
    this.connecting ??= new Promise<Socket>((resolve, reject) => {
      const socket = connect(this.options.socketPath);
      socket.once('connect', () => {
        this.socket = socket;
        this.connecting = undefined;
        resolve(socket);
      });
      socket.once('error', (error) => {
        this.connecting = undefined;
        reject(error);
      });
      socket.on('data', (chunk: Buffer) => this.read(chunk));
      socket.on('close', () => {
        if (this.socket === socket) this.socket = undefined;
        for (const [id, settle] of this.waiting) {
          this.waiting.delete(id);
          settle({
            id,
            ok: false,
            error: { code: 'helper_gone', message: 'the workspace helper closed the connection' },
          });
        }
      });
    });
    return this.connecting;
  }

  private read(chunk: Buffer): void {
    this.buffer += chunk.toString('utf8');
    let newline = this.buffer.indexOf('\n');
    while (newline >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      try {
        const answer = HelperAnswerSchema.parse(JSON.parse(line));
        this.waiting.get(answer.id)?.(answer);
        this.waiting.delete(answer.id);
      } catch {
        // an answer this client cannot read: the call it belongs to times out
      }
      newline = this.buffer.indexOf('\n');
    }
  }
}
