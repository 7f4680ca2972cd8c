import { z } from 'zod';

/**
 * How a run ends, spelled once: the `run-end` event, the run record, the views and the
 * clients read these.
 */
export const RunStatusSchema = z
  .enum(['completed', 'capped', 'cancelled', 'failed'])
  .describe('How the run ended: answered, stopped at a cap, cancelled, or failed');
export type RunStatus = z.infer<typeof RunStatusSchema>;

/**
 * A stored run's status: `running` until it ends; `interrupted` when the server that ran it
 * stopped first (a crash, a replica that died).
 */
export const StoredRunStatusSchema = z
  .enum(['running', ...RunStatusSchema.options, 'interrupted'])
  .describe('running, then how it ended; interrupted when its server stopped first');
export type StoredRunStatus = z.infer<typeof StoredRunStatusSchema>;
