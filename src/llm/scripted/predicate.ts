import { isDeepStrictEqual } from 'node:util';
import { type ChatRequest, contentText, stopStrings } from './chat-request.ts';
import type { Predicate } from './script.ts';

const show = (value: unknown): string => JSON.stringify(value) ?? 'undefined';

/**
 * Checks a request against a predicate. Returns why it does not hold (the first field that
 * fails, with what the request had), or undefined when it holds.
 */
export function predicateFailure(predicate: Predicate, request: ChatRequest): string | undefined {
  const messages = request.messages;
  const last = messages[messages.length - 1];
  const lastText = contentText(last?.content);

  if (predicate.last_role !== undefined && last?.role !== predicate.last_role)
    return `last_role: expected ${show(predicate.last_role)}, the last message has role ${show(last?.role)}`;
  if (predicate.last_contains !== undefined && !lastText.includes(predicate.last_contains))
    return `last_contains: the last message does not contain ${show(predicate.last_contains)} (it is ${show(excerpt(lastText))})`;
  if (
    predicate.any_contains !== undefined &&
    !messages.some((m) => contentText(m.content).includes(predicate.any_contains!))
  )
    return `any_contains: no message contains ${show(predicate.any_contains)}`;
  if (predicate.has_tools !== undefined) {
    const hasTools = (request.tools?.length ?? 0) > 0;
    if (hasTools !== predicate.has_tools)
      return `has_tools: expected ${predicate.has_tools}, the request has ${hasTools ? 'tools' : 'no tools'}`;
  }
  if (predicate.max_tokens_at_least !== undefined) {
    const maxTokens = request.max_tokens ?? request.max_completion_tokens;
    if (maxTokens === undefined || maxTokens === null || maxTokens < predicate.max_tokens_at_least)
      return `max_tokens_at_least: expected at least ${predicate.max_tokens_at_least}, the request has max_tokens ${show(maxTokens ?? null)}`;
  }
  if (predicate.stop_includes !== undefined && !stopStrings(request).includes(predicate.stop_includes))
    return `stop_includes: expected stop to include ${show(predicate.stop_includes)}, the request has stop ${show(request.stop ?? null)}`;
  for (const [field, expected] of Object.entries(predicate.body_has ?? {})) {
    const actual = (request as Record<string, unknown>)[field];
    if (!isDeepStrictEqual(actual, expected))
      return `body_has: expected ${field} = ${show(expected)}, the request has ${show(actual)}`;
  }
  return undefined;
}

function excerpt(text: string): string {
  const chars = [...text];
  return chars.length > 80 ? `${chars.slice(0, 80).join('')}…` : text;
}
