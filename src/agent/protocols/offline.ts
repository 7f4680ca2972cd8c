import { offlineAnalysis } from '../offline/analyst.ts';
import type { AgentProtocol } from '../protocol.ts';

/**
 * The built-in analyst for when no model is configured (SPEC §4.1): deterministic, and every
 * number in its answer comes from code it ran (see `offline/analyst.ts`).
 */
export const offlineProtocol: AgentProtocol = { name: 'offline', needsModel: false, run: offlineAnalysis };
