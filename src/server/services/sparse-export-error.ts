import { ConflictError } from '../../errors/index.ts';

/**
 * An export refused because the workspace's files claim far more bytes than they occupy
 * (sparse files): reading their holes would cost the server work no quota paid for
 * (HTTP 409, docs/spec.md#http-api).
 */
export class SparseExportError extends ConflictError {
  override readonly code = 'export_too_sparse';
}
