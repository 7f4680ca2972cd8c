import { z } from 'zod';

/**
 * The workspace helper's protocol: newline-delimited JSON over a unix socket. The helper is
 * the only root process of the container set-up; it makes, mounts, unmounts and destroys
 * workspace filesystems and nothing else. A request names at most a workspace id (never a
 * path); answers carry the request's `id`, so requests may overlap.
 */

const WorkspaceId = z.string().regex(/^ws-[0-9a-f]{24}$/, 'not a workspace id');

export const HelperRequestSchema = z.discriminatedUnion('op', [
  z.object({ id: z.number().int(), op: z.literal('ping') }).strict(),
  z.object({ id: z.number().int(), op: z.literal('create') }).strict(),
  z.object({ id: z.number().int(), op: z.literal('open'), workspace: WorkspaceId }).strict(),
  z.object({ id: z.number().int(), op: z.literal('destroy'), workspace: WorkspaceId }).strict(),
]);
export type HelperRequest = z.infer<typeof HelperRequestSchema>;
/** A request as the client writes it (without the `id` it adds). */
export type HelperCall = HelperRequest extends infer R
  ? R extends { id: number }
    ? Omit<R, 'id'>
    : never
  : never;

export const HelperAnswerSchema = z.union([
  z.object({
    id: z.number().int(),
    ok: z.literal(true),
    workspace: z.string().optional(),
    kind: z.string().optional(),
  }),
  z.object({
    id: z.number().int(),
    ok: z.literal(false),
    error: z.object({ code: z.string(), message: z.string() }),
  }),
]);
export type HelperAnswer = z.infer<typeof HelperAnswerSchema>;

/** Longest request or answer line; anything longer is a broken peer. */
export const MAX_LINE_BYTES = 4096;
