/**
 * Runs each step in turn, whether or not an earlier one failed, then throws the first failure:
 * a stop whose database went away must still remove sandboxes, slot binds and mounts.
 */
export async function runEvery(steps: ReadonlyArray<() => Promise<unknown>>): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length) throw failures[0];
}
