import { NotFoundError } from '../../errors/index.ts';

/** `from_message_id` names no message of the thread (unknown, or another thread's). */
export class MessageNotFoundError extends NotFoundError {
  override readonly code = 'message_not_found';
}
