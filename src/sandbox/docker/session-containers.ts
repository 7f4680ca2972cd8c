import type { Workspace } from '../../workspace/workspace.ts';
import { SandboxBusyError } from '../errors/sandbox-busy-error.ts';
import type { LiveSession } from '../sandbox.ts';
import { containerName } from './labels.ts';
import type { SandboxContainer } from './sandbox-container.ts';
import { Session } from './session.ts';
import type { WorkspaceSlots } from './workspace-slots.ts';

export interface SessionLimits {
  /** A session container no cell used for this long is given back (stateless sessions). Default 2 min. */
  idleMs: number;
  /** The same for sessions that kept variables (they are lost when it is given back). Default 30 min. */
  statefulIdleMs: number;
  /** Session containers alive at once, in total (the per-key cap is the server's KeyLimiter). */
  maxSessions: number;
  /** How long a cell waits for a container when the caps are reached and none is idle. Default 5 s. */
  capacityWaitMs: number;
  /** A container older than this is replaced before its next cell (its lease nears its end). */
  maxAgeMs: number;
}

export interface SessionContainerDeps {
  limits: SessionLimits;
  now: () => number;
  /** A warm container from the pool (slot containers only), if one is ready. */
  takeWarm(): SandboxContainer | undefined;
  /** Starts a container for the session: on a slot when `slots` exist, else with the workspace bound. */
  start(sessionId: string, workspace: Workspace | undefined): Promise<SandboxContainer>;
  /** Removes a container at once (it may be running or broken). */
  retire(container: SandboxContainer): void;
  /** Removes an idle container in its turn (it runs nothing). */
  giveBack(container: SandboxContainer): void;
  slots(): Promise<WorkspaceSlots | undefined>;
}

/**
 * The session containers of threads, held only while threads are active (docs/spec.md#sandbox-lifecycle, issue
 * 14): a container no cell used for `idleMs` is given back, and the thread's next cell gets a
 * warm container from the pool with its workspace attached (a bind mount into the slot, in
 * milliseconds), so memory grows with the threads that are active, not the threads that
 * exist. The total cap gives back the least recently used idle container first; when every
 * one is busy a cell waits briefly, then gets SandboxBusyError (503, Retry-After).
 */
export class SessionContainers {
  private readonly sessions = new Map<string, Session>();
  /** Stateful sessions whose container was given back, and when: their next cell is told. */
  private readonly lostState = new Map<string, number>();

  constructor(private readonly deps: SessionContainerDeps) {}

  /** The session of `id` on `workspace` (a session moved to another workspace starts anew). */
  session(id: string, workspace: Workspace): Session {
    let session = this.sessions.get(id);
    if (!session || session.workspace.id !== workspace.id) {
      if (session?.container) this.deps.retire(session.container);
      session = new Session(id, workspace, this.deps.now);
      this.sessions.set(id, session);
    }
    return session;
  }

  /** The session's container, started or taken from the pool (with its workspace) if needed. */
  async acquire(session: Session): Promise<SandboxContainer> {
    const current = session.container;
    if (current?.alive && this.deps.now() - current.createdAt < this.deps.limits.maxAgeMs) return current;
    if (current) this.deps.retire(current);
    session.container = undefined;
    await this.makeRoom(session);
    const workspace = session.workspace;
    await workspace.ready();
    const slots = await this.deps.slots();
    if (!slots) {
      session.container = await workspace.keepMounted(() => this.deps.start(session.id, workspace));
      return session.container;
    }
    const warm = this.deps.takeWarm();
    const container = warm ?? (await this.deps.start(session.id, undefined));
    try {
      // Kept mounted until bound: a container start can outlast the idle time of a workspace.
      await workspace.keepMounted(() => slots.attach(container.slot!, workspace.mount().path));
    } catch (error) {
      this.deps.retire(container);
      throw error;
    }
    container.workspace = session.workspace;
    // A pooled container is named for the thread it went to (one started for it already is).
    if (warm) container.pendingName = containerName('session', session.id);
    session.container = container;
    return container;
  }

  /** A note for the cell after a stateful session lost its container (and so its variables). */
  takeLostStateNote(id: string, stateful: boolean): string | undefined {
    const at = this.lostState.get(id);
    if (at === undefined) return undefined;
    this.lostState.delete(id);
    if (!stateful) return undefined;
    const minutes = Math.max(1, Math.round((this.deps.now() - at) / 60_000));
    return `this stateful session was idle and its sandbox was given back ${minutes} min ago: variables of earlier cells are gone (files in the workspace are kept)`;
  }

  /** Gives back the containers of sessions idle past their limit. */
  sweep(): void {
    const now = this.deps.now();
    for (const [id, session] of this.sessions) {
      const container = session.container;
      if (session.busy) continue;
      if (!container) {
        if (now - session.lastActiveAt > this.deps.limits.statefulIdleMs) this.sessions.delete(id);
        continue;
      }
      const limit = session.statefulUsed ? this.deps.limits.statefulIdleMs : this.deps.limits.idleMs;
      if (!container.alive || now - container.lastUsedAt >= limit) this.release(session);
    }
    for (const [id, at] of this.lostState) if (now - at > 24 * 3600_000) this.lostState.delete(id);
  }

  /** Removes the session and its container; resolves when the container is gone. */
  async close(id: string): Promise<void> {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    this.lostState.delete(id);
    await session?.close();
  }

  /** Closes every session on the workspace. */
  async closeWorkspace(workspaceId: string): Promise<void> {
    const bound = [...this.sessions].filter(([, session]) => session.workspace.id === workspaceId);
    await Promise.all(bound.map(([id]) => this.close(id)));
  }

  get liveCount(): number {
    return this.live().length;
  }

  /** Sessions holding a live container now (the server's per-key limits count these). */
  live(): LiveSession[] {
    return [...this.sessions.values()].flatMap((s) =>
      s.container?.alive ? [{ id: s.id, busy: s.busy, lastUsedAt: s.container.lastUsedAt }] : [],
    );
  }

  names(): string[] {
    return [...this.sessions.values()].flatMap((s) => (s.container ? [s.container.name] : []));
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.close()));
    this.sessions.clear();
  }

  private release(session: Session): void {
    const container = session.container;
    if (!container) return;
    if (session.statefulUsed) this.lostState.set(session.id, this.deps.now());
    session.container = undefined;
    session.statefulUsed = false;
    this.deps.giveBack(container);
  }

  /** Waits until the caps leave room for one more container, giving back idle ones first. */
  private async makeRoom(session: Session): Promise<void> {
    const { maxSessions, capacityWaitMs } = this.deps.limits;
    const deadline = this.deps.now() + capacityWaitMs;
    for (;;) {
      const live = [...this.sessions.values()].filter((s) => s !== session && s.container?.alive);
      if (live.length < maxSessions) return;
      const idle = live
        .filter((s) => !s.busy)
        .sort((a, b) => a.container!.lastUsedAt - b.container!.lastUsedAt);
      if (idle[0]) {
        this.release(idle[0]);
        continue;
      }
      if (this.deps.now() >= deadline) {
        throw new SandboxBusyError(
          `all ${maxSessions} sandboxes of this server are running cells (ANALYST_MAX_SESSIONS); try again in a few seconds`,
          { retryAfterSeconds: 5 },
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
