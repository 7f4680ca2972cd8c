import { listOf, ModelObjectSchema } from '../wire/objects.ts';
import type { ApiRoute } from './api-route.ts';

/** The service itself: whether it lives and is ready, this document, the models it offers. */
export const SERVICE_ROUTES: ApiRoute[] = [
  { method: 'get', path: '/health', summary: 'Liveness', public: true },
  {
    method: 'get',
    path: '/health/ready',
    summary: 'Readiness: store and sandbox (details only with a key)',
    public: true,
    errors: [503],
  },
  { method: 'get', path: '/openapi.json', summary: 'This document', public: true },
  { method: 'get', path: '/v1/models', summary: 'List models', response: listOf(ModelObjectSchema) },
  { method: 'get', path: '/v1/models/{id}', summary: 'A model', response: ModelObjectSchema },
];
