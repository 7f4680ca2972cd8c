import type { FastifyInstance } from 'fastify';
import type { ModelEntry } from '../../llm/model.ts';
import type { AppDeps } from '../deps.ts';
import type { ModelObject } from '../wire/objects.ts';

const STARTED = Math.floor(Date.now() / 1000);

function modelObject(entry: ModelEntry, isDefault: boolean): ModelObject {
  return {
    id: entry.id,
    object: 'model',
    created: STARTED,
    owned_by: 'analyst',
    protocol: entry.protocol,
    default: isDefault,
    ...(entry.description ? { description: entry.description } : {}),
  };
}

export function registerModelRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/v1/models', async () => {
    const fallback = deps.registry.default().id;
    return { object: 'list', data: deps.registry.list().map((e) => modelObject(e, e.id === fallback)) };
  });

  app.get<{ Params: { id: string } }>('/v1/models/:id', async (request) => {
    const entry = deps.registry.get(request.params.id);
    return modelObject(entry, entry.id === deps.registry.default().id);
  });
}
