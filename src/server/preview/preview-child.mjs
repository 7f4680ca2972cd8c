// A preview process yields the CPU to the server: its session (its own, since it leads a
// process group) is the scheduler's unit where autogroups are on, so the group's weight is
// lowered too, not only the threads' nice value (set by `nice` when it was started).
import { writeFileSync } from 'node:fs';
import { register } from 'tsx/esm/api';

try {
  writeFileSync('/proc/self/autogroup', '19');
} catch {
  // no autogroups on this kernel: nice alone decides
}
// It runs TypeScript like the server: register tsx's loader, then the program.
register();
await import('./preview-child.ts');
