import type { ChatRequest } from './chat-request.ts';
import { predicateFailure } from './predicate.ts';
import type { Script, Turn } from './script.ts';

/** The turn that serves a request (`number` is 1-based, as people count), or why there is none. */
export type Selection = { turn: Turn; number: number } | { status: number; message: string };

/**
 * Picks the turn for each request. "sequence": requests take turns in order, each turn serving
 * `times` requests; "match": the first turn whose `when` holds, with no state at all.
 */
export class TurnSelector {
  readonly #script: Script;
  #cursor = 0;
  #servedByCursor = 0;
  #requests = 0;

  constructor(script: Script) {
    this.#script = script;
  }

  select(request: ChatRequest): Selection {
    this.#requests += 1;
    return this.#script.mode === 'match' ? this.#match(request) : this.#next();
  }

  #next(): Selection {
    const turn = this.#script.turns[this.#cursor];
    if (!turn) {
      const served = this.#script.turns.reduce((sum, t) => sum + t.times, 0);
      return {
        status: 500,
        message: `script exhausted: request ${this.#requests} came after all ${served} scripted answers were served`,
      };
    }
    const number = this.#cursor + 1;
    this.#servedByCursor += 1;
    if (this.#servedByCursor >= turn.times) {
      this.#cursor += 1;
      this.#servedByCursor = 0;
    }
    return { turn, number };
  }

  #match(request: ChatRequest): Selection {
    const reasons: string[] = [];
    for (const [i, turn] of this.#script.turns.entries()) {
      const failure = turn.when ? predicateFailure(turn.when, request) : undefined;
      if (failure === undefined) return { turn, number: i + 1 };
      reasons.push(`turn ${i + 1}: ${failure}`);
    }
    return { status: 400, message: `no scripted turn matches this request (${reasons.join('; ')})` };
  }
}
