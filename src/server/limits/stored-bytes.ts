/**
 * A hold on part of a key's stored-bytes quota, taken before the bytes are written and
 * given back once the store counts them (or the write failed).
 */
export interface StoredBytesHold {
  /** Bytes held now. */
  readonly bytes: number;
  /**
   * Holds up to `total` bytes in all, before they are written: false (nothing more held)
   * when the key has no room for them.
   */
  growTo(total: number): boolean;
  /**
   * Gives the hold back (once; later calls do nothing). `storedBytes`: how many of the
   * bytes the store now counts for the key (0 on failure), so that holds taken before the
   * store counted them still see them.
   */
  release(storedBytes: number): void;
}

interface OwnerState {
  held: number;
  /** Bytes released into the store's count since this replica started (only ever grows). */
  stored: number;
  holds: number;
}

/**
 * Stored-bytes reservations of one replica (issue 29 §7). A hold starts from the key's
 * usage as the store last reported it and adds every byte held by other uploads on this
 * replica, plus those released into the store since that report (the report may have
 * been read before they were counted). Concurrent uploads therefore cannot together pass
 * the limit: each byte is held before it is written.
 */
export class StoredBytesReservations {
  private readonly owners = new Map<string, OwnerState>();

  constructor(private readonly limitBytes: number) {}

  /**
   * A hold with nothing held yet, counted from the key's usage as `readUsage` reports it.
   * The hold is registered before the usage is read, so bytes released into the store
   * while it is read are counted (twice at worst, never not at all).
   */
  async hold(owner: string, readUsage: () => Promise<number>): Promise<StoredBytesHold> {
    const state = this.owners.get(owner) ?? { held: 0, stored: 0, holds: 0 };
    this.owners.set(owner, state);
    state.holds += 1;
    const mark = state.stored;
    let storedBytes: number;
    try {
      storedBytes = await readUsage();
    } catch (error) {
      state.holds -= 1;
      if (state.holds === 0 && this.owners.get(owner) === state) this.owners.delete(owner);
      throw error;
    }
    let bytes = 0;
    let released = false;
    const owners = this.owners;
    const limit = this.limitBytes;
    return {
      get bytes() {
        return bytes;
      },
      growTo(total: number): boolean {
        if (released) throw new Error('the hold was released');
        if (total <= bytes) return true;
        const used = storedBytes + (state.stored - mark) + state.held;
        if (used + (total - bytes) > limit) return false;
        state.held += total - bytes;
        bytes = total;
        return true;
      },
      release(stored: number): void {
        if (released) return;
        released = true;
        state.held -= bytes;
        state.stored += Math.max(0, stored);
        state.holds -= 1;
        // With no hold left, no read of the usage is under way that could miss these bytes.
        if (state.holds === 0 && owners.get(owner) === state) owners.delete(owner);
      },
    };
  }

  /** Bytes held now for `owner` (for tests and diagnostics). */
  heldBytes(owner: string): number {
    return this.owners.get(owner)?.held ?? 0;
  }
}
