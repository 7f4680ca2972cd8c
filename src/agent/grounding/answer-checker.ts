import type { ChatMessage, GroundingMode } from '../../llm/model.ts';
import type { Budget } from '../budget.ts';
import type { AgentEvent } from '../events.ts';
import { EvidenceCollector, type ReadTextFile } from './evidence.ts';
import { groundAnswer } from './ground.ts';
import { repairInstruction } from './repair.ts';
import type { GroundedNumber } from './types.ts';

/** Repair rounds per run: one, as the issue asks; the answer after it is final. */
const MAX_REPAIR_ROUNDS = 1;

export interface AnswerCheckerOptions {
  mode: GroundingMode;
  /** The run's conversation: its user messages are the question, its earlier turns evidence. */
  messages: ChatMessage[];
  budget: Budget;
  readTextFile?: ReadTextFile;
}

/**
 * The agent loop's grounding: it watches the run's events, checks each answer when it ends
 * (`answer-grounding`) and, in `repair` mode, tells the protocol when one more round is due.
 */
export class AnswerChecker {
  private readonly evidence: EvidenceCollector;
  private readonly question: string;
  private ungrounded: GroundedNumber[] = [];
  private repairs = 0;
  /** The latest answer, so that a cap reached in a repair round does not lose it. */
  lastAnswer: string | undefined;

  constructor(private readonly options: AnswerCheckerOptions) {
    const lastUser = options.messages.map((m) => m.role).lastIndexOf('user');
    this.evidence = new EvidenceCollector({
      history: options.messages.slice(0, Math.max(0, lastUser)),
      ...(options.readTextFile ? { readTextFile: options.readTextFile } : {}),
    });
    this.question = options.messages
      .filter((m) => m.role === 'user' || m.role === 'system')
      .map((m) => m.content ?? '')
      .join('\n');
  }

  push(event: AgentEvent): void {
    this.evidence.push(event);
  }

  addRows(cellId: string, rows: ReadonlyArray<Record<string, unknown>>): void {
    this.evidence.addRows(cellId, rows);
  }

  /** The grounding event for an answer that just ended; undefined when grounding is off. */
  async check(
    end: Extract<AgentEvent, { type: 'answer-end' }>,
  ): Promise<Extract<AgentEvent, { type: 'answer-grounding' }> | undefined> {
    this.lastAnswer = end.text;
    this.ungrounded = [];
    if (this.options.mode === 'off') return undefined;
    const numbers = groundAnswer({
      answer: end.text,
      question: this.question,
      evidence: await this.evidence.evidence(),
    });
    this.ungrounded = numbers.filter((n) => n.status === 'ungrounded');
    return { type: 'answer-grounding', round: end.round, numbers };
  }

  /** The repair round's message, once, when the mode asks for it and a round is left. */
  repairInstruction(howToAnswer: string): string | undefined {
    const { budget, mode } = this.options;
    if (mode !== 'repair' || this.repairs >= MAX_REPAIR_ROUNDS || this.ungrounded.length === 0)
      return undefined;
    if (budget.round >= budget.limits.maxRounds) return undefined;
    const message = repairInstruction(this.ungrounded, howToAnswer);
    if (message) this.repairs += 1;
    this.ungrounded = [];
    return message;
  }
}
