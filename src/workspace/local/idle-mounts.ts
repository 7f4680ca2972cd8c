/**
 * Which of a store's mounted workspaces are in use and when each was last used, so the ones
 * left alone for a while can be unmounted (issue 29: 100 threads held 101 loop devices). A
 * use is counted from before its workspace is mounted until its work ends (a lease).
 */
export class IdleMounts {
  private readonly users = new Map<string, number>();
  private readonly lastUsed = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  begin(id: string): void {
    this.users.set(id, (this.users.get(id) ?? 0) + 1);
  }

  end(id: string): void {
    const left = (this.users.get(id) ?? 1) - 1;
    if (left > 0) this.users.set(id, left);
    else this.users.delete(id);
    this.touch(id);
  }

  /** Marks `id` used now (mounted, handed out). */
  touch(id: string): void {
    this.lastUsed.set(id, this.now());
  }

  busy(id: string): boolean {
    return this.users.has(id);
  }

  /** Of `ids`, those nobody uses and nobody used for `idleMs`. */
  idle(ids: Iterable<string>, idleMs: number): string[] {
    const now = this.now();
    return [...ids].filter((id) => !this.users.has(id) && now - (this.lastUsed.get(id) ?? 0) >= idleMs);
  }

  forget(id: string): void {
    this.lastUsed.delete(id);
  }
}
