import { offlineAnalysis } from '../offline/analyst.ts';
import type { AgentProtocol } from '../protocol.ts';

/**
 * The built-in analyst for when no model is configured (docs/spec.md#model-protocols): deterministic, and every
 * number in its answer comes from code it ran (see `offline/analyst.ts`).
 */
export const offlineProtocol: AgentProtocol = { name: 'offline', needsModel: false, run: offlineAnalysis };
