import assert from 'node:assert/strict';
import { test } from 'node:test';
import { conversationBefore, conversationPath } from '../../src/runs/conversation-path.ts';
import type { MessageRecord } from '../../src/store/store.ts';

/** Stored messages from `id:role[>revised]` words, in the order they were stored. */
function stored(spec: string): MessageRecord[] {
  return spec.split(' ').map((word, i) => {
    const [id = '', rest = ''] = word.split(':');
    const [role, revises] = rest.split('>');
    return {
      id,
      thread_id: 't',
      role: role === 'a' ? 'assistant' : 'user',
      content: id,
      file_ids: [],
      run_id: null,
      revises: revises ?? null,
      created_at: i,
    };
  });
}
const ids = (messages: MessageRecord[]) => messages.map((m) => m.id).join(' ');

test('a thread without revisions is its stored messages in order', () => {
  const messages = stored('q1:u a1:a q2:u a2:a');
  assert.equal(ids(conversationPath(messages)), 'q1 a1 q2 a2');
  assert.equal(ids(conversationBefore(messages, 'q2')), 'q1 a1');
  assert.equal(ids(conversationBefore(messages, 'q1')), '');
});

test('an edit replaces the question and everything after it; later questions follow the edit', () => {
  const messages = stored('q1:u a1:a q2:u a2:a q3:u a3:a e2:u>q2 b2:a q4:u a4:a');
  assert.equal(ids(conversationBefore(messages, 'e2')), 'q1 a1');
  assert.equal(ids(conversationPath(messages)), 'q1 a1 e2 b2 q4 a4');
});

test('regenerating a revision, or the first question, starts from before it', () => {
  const messages = stored('q1:u a1:a r1:u>q1 b1:a r2:u>r1 c1:a');
  assert.equal(ids(conversationBefore(messages, 'r1')), '');
  assert.equal(ids(conversationPath(messages)), 'r2 c1');
});

test('editing a question of a replaced branch continues that branch', () => {
  const messages = stored('q1:u a1:a q2:u a2:a e1:u>q1 b1:a e2:u>q2 b2:a');
  assert.equal(ids(conversationPath(messages)), 'q1 a1 e2 b2');
});

test('an unknown id has no conversation before it; a revision of one continues as it is', () => {
  const messages = stored('q1:u a1:a x:u>gone y:a');
  assert.equal(ids(conversationBefore(messages, 'gone')), '');
  assert.equal(ids(conversationPath(messages)), 'q1 a1 x y');
});
