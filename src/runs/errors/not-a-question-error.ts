import { InvalidInputError } from '../../errors/index.ts';

/** `from_message_id` names an answer: only a question (a user message) can be edited or regenerated. */
export class NotAQuestionError extends InvalidInputError {
  override readonly code = 'not_a_question';
}
