import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelRegistry } from '../../../llm/registry.ts';
import { loadServerConfig } from '../../../server/config.ts';
import { createService } from '../../../server/service.ts';
import type { ChatBackend } from './backend.ts';
import { HttpBackend } from './http-backend.ts';

/**
 * `analyst chat` without --url: the whole service started in this process on 127.0.0.1 (a
 * free port, open mode), its data in `dataDir` or in a temporary folder removed on close.
 * The client then speaks HTTP to it, exactly as to a remote server.
 */
export async function startInProcess(options: {
  dataDir?: string;
  registry: ModelRegistry;
  env: Record<string, string | undefined>;
}): Promise<{ backend: ChatBackend; dataDir: string; temporary: boolean }> {
  const temporary = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'analyst-chat-')));
  // Keys from the environment are for a served API; this server answers only this process.
  const env = { ...options.env, ANALYST_API_KEYS: undefined, ANALYST_API_KEYS_FILE: undefined };
  const config = loadServerConfig({ host: '127.0.0.1', port: 0, dataDir }, env);
  const service = await createService(config, { registry: options.registry, logger: false });
  try {
    const url = await service.listen();
    const backend = new HttpBackend({
      url,
      location: `an in-process server (data in ${temporary ? 'a temporary folder, removed on exit' : dataDir})`,
      onClose: async () => {
        await service.close();
        if (temporary) await rm(dataDir, { recursive: true, force: true });
      },
    });
    return { backend, dataDir, temporary };
  } catch (error) {
    await service.close();
    if (temporary) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
