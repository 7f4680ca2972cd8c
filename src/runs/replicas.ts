import type { Store } from '../store/store.ts';

/** How a run service takes part in a service of several replicas on one shared store. */
export interface ReplicaOptions {
  /** This process's id among the replicas, written on the leases of the runs it executes. */
  replica: string;
  /**
   * A replica that dies has its runs marked interrupted by another within this time. Leases
   * are renewed four times per period and written to last three quarters of it, so a live
   * replica may miss two renewals in a row. Default 15 s (ANALYST_RUN_LEASE_MS).
   */
  leaseMs?: number;
  /** How often a subscriber following another replica's run looks when no notice came. Default 1 s. */
  pollMs?: number;
}

export const DEFAULT_LEASE_MS = 15_000;

export interface LeaseKeeperHooks {
  /** The runs this replica executes now. */
  liveRunIds: () => string[];
  /** Stop a run here: someone asked to cancel it, or its lease was taken (it must not go on). */
  stop: (runId: string, why: 'cancel-requested' | 'lease-lost') => void;
  /** Runs other replicas left (they died) were marked interrupted. */
  interrupted?: (runIds: string[]) => void;
  onError?: (error: unknown) => void;
}

/**
 * Keeps this replica's run leases alive and watches the others': every quarter of the lease
 * period it renews its own (learning of cancel requests and of leases it lost) and marks
 * runs whose lease has passed as interrupted. Cancel notices act at once; the renewal is
 * the fallback when a notice is lost.
 */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopNotices: (() => void) | undefined;
  readonly leaseMs: number;

  constructor(
    private readonly store: Store,
    private readonly options: ReplicaOptions,
    private readonly hooks: LeaseKeeperHooks,
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  get replica(): string {
    return this.options.replica;
  }

  /** What a new run's lease is written with. */
  get ttlMs(): number {
    return Math.round((this.leaseMs * 3) / 4);
  }

  start(): void {
    this.stopNotices = this.store.notices?.onCancelRequest((runId) => {
      if (this.hooks.liveRunIds().includes(runId)) this.hooks.stop(runId, 'cancel-requested');
    });
    this.timer = setInterval(() => void this.tick(), Math.max(50, Math.round(this.leaseMs / 4)));
    this.timer.unref();
  }

  /** One renewal and sweep (never two at once). */
  tick(): Promise<void> {
    this.ticking ??= this.renewAndSweep()
      .catch((error) => this.hooks.onError?.(error))
      .finally(() => {
        this.ticking = undefined;
      });
    return this.ticking;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.stopNotices?.();
    await this.ticking;
  }

  private async renewAndSweep(): Promise<void> {
    // Runs known before the renewal were stored before it: one missing from `held` was taken.
    const before = this.hooks.liveRunIds();
    const { held, cancelRequested } = await this.store.renewLeases(this.options.replica, this.ttlMs);
    const kept = new Set(held);
    for (const runId of before) if (!kept.has(runId)) this.hooks.stop(runId, 'lease-lost');
    for (const runId of cancelRequested) this.hooks.stop(runId, 'cancel-requested');
    const interrupted = await this.store.markInterruptedRuns();
    if (interrupted.length) this.hooks.interrupted?.(interrupted);
  }
}
