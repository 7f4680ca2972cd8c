import { LimitExceededError } from '../../errors/index.ts';
import type { SandboxManager } from '../../sandbox/sandbox.ts';
import type { Store } from '../../store/store.ts';
import { OPEN_MODE_OWNER } from '../auth.ts';
import { type KeyLimits, limitVariable } from './key-limits.ts';
import { RequestRate } from './request-rate.ts';
import { Slots } from './slots.ts';
import { type StoredBytesHold, StoredBytesReservations } from './stored-bytes.ts';

/** Gives back what an admission took (once; later calls do nothing). */
export type Release = () => void;

const NOTHING: Release = () => {};
const UNLIMITED_HOLD: StoredBytesHold = {
  bytes: Number.POSITIVE_INFINITY,
  growTo: () => true,
  release: () => {},
};
/** When a quota (threads, bytes) is worth looking at again: only deleting frees it. */
const QUOTA_RETRY_S = 60;

/**
 * Enforces the per-key limits (`KeyLimits`) at the service's doors: each check either
 * passes or throws LimitExceededError (429, Retry-After). Counts that must hold over every
 * replica (threads, runs, stored bytes) come from the store; sandboxes and the request
 * rate are this replica's own. Open mode's owner is not limited.
 */
export class KeyLimiter {
  private readonly rate: RequestRate;
  private readonly oneShot: Slots;
  private readonly storedBytes: StoredBytesReservations;
  /** Threads whose session this limiter admitted, and who owns them (pruned as sessions end). */
  private readonly sessionOwners = new Map<string, string>();
  /** Threads with a run or exec under way now, by thread: owner and how many. */
  private readonly sessionUses = new Map<string, { owner: string; count: number }>();

  constructor(
    readonly limits: KeyLimits,
    private readonly deps: { store: Store; sandbox: SandboxManager; now?: () => number },
  ) {
    this.rate = new RequestRate(limits.requestsPerMinute, deps.now);
    this.oneShot = new Slots(limits.oneShotSandboxes);
    this.storedBytes = new StoredBytesReservations(limits.storedBytes);
  }

  applies(owner: string): boolean {
    return owner !== OPEN_MODE_OWNER;
  }

  /** Every authenticated request: one token of the key's rate. */
  checkRequest(owner: string): void {
    if (!this.applies(owner)) return;
    const waitMs = this.rate.take(owner);
    if (waitMs > 0) {
      throw new LimitExceededError(
        `this API key made more than ${this.limits.requestsPerMinute} requests in a minute; slow down (${limitVariable('requestsPerMinute')})`,
        { limit: 'requests_per_minute', retryAfterSeconds: waitMs / 1000 },
      );
    }
  }

  /** Before a thread is made. */
  async admitThread(owner: string): Promise<void> {
    if (!this.applies(owner) || !Number.isFinite(this.limits.threads)) return;
    const { threads } = await this.deps.store.usage(owner);
    if (threads >= this.limits.threads) {
      throw new LimitExceededError(
        `this API key has ${threads} threads, its limit of ${this.limits.threads}; delete some (DELETE /v1/threads/{id} or POST /v1/admin/cleanup-threads)`,
        { limit: 'threads', retryAfterSeconds: QUOTA_RETRY_S },
      );
    }
  }

  /** Bytes the key may still store (Infinity without a limit); 429 when nothing is left. */
  async storedBytesLeft(owner: string): Promise<number> {
    if (!this.applies(owner) || !Number.isFinite(this.limits.storedBytes)) return Number.POSITIVE_INFINITY;
    const { fileBytes, workspaceBytes } = await this.deps.store.usage(owner);
    const left = this.limits.storedBytes - fileBytes - workspaceBytes;
    if (left <= 0) throw this.storedBytesError();
    return left;
  }

  /**
   * A hold on the key's stored bytes for an upload, of `initialBytes` to begin with (its
   * declared size): grow it before each byte is written, release it once the store counts
   * the bytes (or the upload failed). 429 when `initialBytes` do not fit. Holds are this replica's: uploads at once through several replicas can each take
   * what the store last reported as left.
   */
  async holdStoredBytes(owner: string, initialBytes = 1): Promise<StoredBytesHold> {
    if (!this.applies(owner) || !Number.isFinite(this.limits.storedBytes)) return UNLIMITED_HOLD;
    const hold = await this.storedBytes.hold(owner, async () => {
      const { fileBytes, workspaceBytes } = await this.deps.store.usage(owner);
      return fileBytes + workspaceBytes;
    });
    if (!hold.growTo(Math.max(1, initialBytes))) {
      hold.release(0);
      throw this.storedBytesError();
    }
    return hold;
  }

  /** Bytes held for uploads of `owner` under way on this replica. */
  heldStoredBytes(owner: string): number {
    return this.storedBytes.heldBytes(owner);
  }

  storedBytesError(): LimitExceededError {
    return new LimitExceededError(
      `this API key would store more than ${this.limits.storedBytes} bytes (uploads, uploads under way and workspaces), its limit (${limitVariable('storedBytes')}); delete files or threads to make room`,
      { limit: 'stored_bytes', retryAfterSeconds: QUOTA_RETRY_S },
    );
  }

  /** The key's limit of runs at once, for the store to enforce; undefined: none. */
  runsFor(owner: string): number | undefined {
    return this.applies(owner) && Number.isFinite(this.limits.runs) ? this.limits.runs : undefined;
  }

  /** A one-shot sandbox for `POST /v1/exec`, now or 429. */
  takeOneShot(owner: string): Release {
    if (!this.applies(owner)) return NOTHING;
    const release = this.oneShot.tryTake(owner);
    if (!release) {
      throw new LimitExceededError(
        `this API key already runs ${this.limits.oneShotSandboxes} one-shot sandboxes at once, its limit; retry when one ends (${limitVariable('oneShotSandboxes')})`,
        { limit: 'one_shot_sandboxes', retryAfterSeconds: 2 },
      );
    }
    return release;
  }

  /** A one-shot sandbox for a run's `python_exec`: waits for its turn (or the abort). */
  waitOneShot(owner: string, abortSignal?: AbortSignal): Promise<Release> {
    if (!this.applies(owner)) return Promise.resolve(NOTHING);
    return this.oneShot.take(owner, abortSignal);
  }

  /**
   * Before a run or exec uses the thread's session sandbox. Within the key's limit it
   * passes; over it the key's least recently used idle session is released to make room
   * (a stateful session loses its variables), and when every one is busy it is a 429. The
   * use lasts until the returned release.
   */
  async admitSession(owner: string, threadId: string): Promise<Release> {
    if (!this.applies(owner)) return NOTHING;
    const limit = this.limits.sessions;
    const live = this.deps.sandbox.liveSessions?.() ?? [];
    this.prune(new Set(live.map((s) => s.id)));
    const held = new Set<string>();
    for (const session of live) if (this.sessionOwners.get(session.id) === owner) held.add(session.id);
    for (const [id, use] of this.sessionUses) if (use.owner === owner) held.add(id);
    let evict: string | undefined;
    if (!held.has(threadId) && held.size >= limit) {
      evict = live
        .filter((s) => held.has(s.id) && !s.busy && !this.sessionUses.has(s.id))
        .sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0]?.id;
      if (!evict) {
        throw new LimitExceededError(
          `this API key has ${held.size} sandbox sessions busy, its limit of ${limit}; retry when a run or cell ends (${limitVariable('sessions')})`,
          { limit: 'sessions', retryAfterSeconds: 5 },
        );
      }
    }
    // Taken before anything is awaited, so concurrent admissions count each other.
    const release = this.use(owner, threadId);
    if (evict) {
      this.sessionOwners.delete(evict);
      try {
        await this.deps.sandbox.closeSession(evict);
      } catch (error) {
        release();
        throw error;
      }
    }
    return release;
  }

  private use(owner: string, threadId: string): Release {
    this.sessionOwners.set(threadId, owner);
    const use = this.sessionUses.get(threadId) ?? { owner, count: 0 };
    use.count += 1;
    this.sessionUses.set(threadId, use);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      use.count -= 1;
      if (use.count === 0 && this.sessionUses.get(threadId) === use) this.sessionUses.delete(threadId);
    };
  }

  /** Forgets owners of sessions that are neither live nor in use. */
  private prune(live: ReadonlySet<string>): void {
    for (const id of this.sessionOwners.keys()) {
      if (!live.has(id) && !this.sessionUses.has(id)) this.sessionOwners.delete(id);
    }
  }
}
