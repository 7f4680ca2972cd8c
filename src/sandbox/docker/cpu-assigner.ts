/**
 * Gives each sandbox container its own CPU (cpuset), balancing by how many live containers
 * each CPU holds. A sandbox already gets at most one CPU of time (its quota); keeping all of
 * its processes on one CPU means waking a cell's process costs no cross-CPU interrupt, which
 * in a virtual machine is a large part of a small cell's latency
 * (docs/performance.md#cpu-pinning). Sandboxes with a quota above one CPU are not pinned.
 */
export class CpuAssigner {
  private readonly load: number[];

  constructor(cpuCount: number) {
    this.load = Array.from({ length: Math.max(1, Math.floor(cpuCount)) }, () => 0);
  }

  /** The least-loaded CPU as a Docker cpuset string; release it when the container goes. */
  acquire(): { cpuset: string; release: () => void } {
    let best = 0;
    for (let cpu = 1; cpu < this.load.length; cpu++) if (this.load[cpu]! < this.load[best]!) best = cpu;
    this.load[best]! += 1;
    let released = false;
    return {
      cpuset: String(best),
      release: () => {
        if (released) return;
        released = true;
        this.load[best]! -= 1;
      },
    };
  }

  get counts(): readonly number[] {
    return this.load;
  }
}
