import type { ProtocolName } from '../../llm/model.ts';
import type { AgentProtocol } from '../protocol.ts';
import { deepAnalyzeProtocol } from './deepanalyze.ts';
import { offlineProtocol } from './offline.ts';
import { promptedProtocol } from './prompted.ts';
import { toolsProtocol } from './tools.ts';

export const PROTOCOLS: Record<ProtocolName, AgentProtocol> = {
  deepanalyze: deepAnalyzeProtocol,
  prompted: promptedProtocol,
  tools: toolsProtocol,
  offline: offlineProtocol,
};
