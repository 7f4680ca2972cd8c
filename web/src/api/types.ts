import { z } from 'zod';
import type {
  ConnectionObjectSchema,
  ConnectionQueryResultSchema,
  ConnectionSchemaObjectSchema,
  ExtractResultSchema,
} from '../../../src/contract/connections.ts';
import type {
  ModelObject,
  RunObject,
  ThreadObject,
  WorkspaceFileObject,
} from '../../../src/contract/objects.ts';

/** Wire shapes of the API the UI reads: the contract's (src/contract), as the shared client checks them. */
export type Thread = ThreadObject & { runs?: Run[] };
export type Run = RunObject;
export type Model = ModelObject;
export type WorkspaceFile = WorkspaceFileObject;

export type { Preview } from '../../../src/contract/preview.ts';

export interface List<T> {
  data: T[];
  has_more?: boolean;
}

/** What the studio keeps in a thread's metadata besides the model (the API lets any client write there). */
export interface ThreadSettings {
  temperature?: number;
  system?: string;
}

// Lenient: another client may have written anything under these keys; what is not ours is ignored.
const SettingsSchema = z.object({ temperature: z.number().optional(), system: z.string().optional() });

/** The model a thread's metadata names, if it names one as a string. */
export function threadModel(thread: Thread): string | undefined {
  const model = thread.metadata.model;
  return typeof model === 'string' ? model : undefined;
}

/** The studio's settings in a thread's metadata (temperature, system prompt), if they are readable. */
export function threadSettings(thread: Thread): ThreadSettings | undefined {
  const parsed = SettingsSchema.safeParse(thread.metadata.settings);
  return parsed.success ? parsed.data : undefined;
}

/** A database connection as a key sees it (never its URL): `GET /v1/connections`. */
export type Connection = z.infer<typeof ConnectionObjectSchema>;
export type ConnectionSchema = z.infer<typeof ConnectionSchemaObjectSchema>;
export type ConnectionTable = ConnectionSchema['tables'][number];
export type ConnectionQueryResult = z.infer<typeof ConnectionQueryResultSchema>;
export type ConnectionCell = ConnectionQueryResult['rows'][number][number];
export type ConnectionExtract = z.infer<typeof ExtractResultSchema>;
