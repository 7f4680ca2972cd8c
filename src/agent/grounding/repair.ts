import type { GroundedNumber } from './types.ts';

/**
 * The message of the opt-in repair round: which numbers of the answer appear in no output,
 * and that each must be computed (and printed) or removed before the answer is final.
 * Undefined when every number is grounded, derived or not a claim.
 */
export function repairInstruction(
  numbers: readonly GroundedNumber[],
  howToAnswer: string,
): string | undefined {
  const ungrounded = [...new Set(numbers.filter((n) => n.status === 'ungrounded').map((n) => n.text))];
  if (ungrounded.length === 0) return undefined;
  const listed = ungrounded.length > 40 ? [...ungrounded.slice(0, 40), '…'] : ungrounded;
  const these = ungrounded.length === 1 ? 'This number' : `These ${ungrounded.length} numbers`;
  return [
    `${these} in your answer appear in no output of the code that ran: ${listed.join(', ')}.`,
    'For each one, either compute it with code and print it, or remove it from the answer. Do not estimate or recall numbers.',
    howToAnswer,
  ].join('\n');
}
