import { DeletedSchema, FileObjectSchema, listOf } from '../wire/objects.ts';
import { type ApiRoute, rawAnswer } from './api-route.ts';

/** Uploaded files (OpenAI's /v1/files), before they are copied into a thread's workspace. */
export const FILE_ROUTES: ApiRoute[] = [
  { method: 'get', path: '/v1/files', summary: 'List uploaded files', response: listOf(FileObjectSchema) },
  {
    method: 'post',
    path: '/v1/files',
    summary: 'Upload a file (multipart: file, purpose)',
    body: 'multipart',
    response: FileObjectSchema,
    errors: [413],
  },
  { method: 'get', path: '/v1/files/{id}', summary: 'A file', response: FileObjectSchema },
  { method: 'delete', path: '/v1/files/{id}', summary: 'Delete a file', response: DeletedSchema },
  {
    method: 'get',
    path: '/v1/files/{id}/content',
    summary: "A file's bytes",
    response: rawAnswer('bytes', 'application/octet-stream'),
  },
];
