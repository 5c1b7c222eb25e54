import type { Msg } from '../../message/blocks.js';
import type { PendingReply } from '../../state/snapshot.js';
import { AgentUsageError } from '../errors.js';
import { closePendingReply } from './pending-reply-policy.js';
import { ReplyContext } from './reply-context.js';

const call = (id: string, name: string) => ({ type: 'tool_call' as const, id, name, arguments: '{}' });
const message = (...ids: [string, string][]): Msg => ({
  id: 'm1',
  role: 'assistant',
  name: 'bot',
  content: ids.map(([id, name]) => call(id, name)),
  createdAt: 0,
});
const pending = (over: Partial<PendingReply>): PendingReply => ({
  replyId: 'r1',
  iteration: 1,
  toolSteps: 1,
  message: message(),
  confirm: [],
  external: [],
  usage: { inputTokens: 0, outputTokens: 0 },
  ...over,
});
const results = (m: Msg) =>
  m.content.flatMap((b) =>
    b.type === 'tool_result'
      ? [[b.toolCallId, b.status, b.output.map((o) => ('text' in o ? o.text : '')).join('')]]
      : [],
  );

describe("closePendingReply with 'refuse'", () => {
  it('refuses a message while calls wait for confirmation, naming the calls and what to send', () => {
    const p = pending({ message: message(['c1', 'rm']), confirm: [{ id: 'c1', name: 'rm', input: {} }] });
    let err: unknown;
    try {
      closePendingReply(p, 'refuse', 'bot', 's1');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AgentUsageError);
    expect((err as AgentUsageError).code).toBe('invalid_use');
    expect((err as Error).message).toBe(
      'Agent "bot" is waiting for USER_CONFIRM_RESULT for tool call(s) c1 (rm) of reply r1; answer them before sending a new message.',
    );
  });

  it('names EXTERNAL_EXECUTION_RESULT for external calls, and RESUME_REPLY for a shutdown', () => {
    const ext = pending({ message: message(['e1', 'deploy']), external: [{ id: 'e1', name: 'deploy', input: {} }] });
    expect(() => closePendingReply(ext, 'refuse', 'bot', 's1')).toThrow(
      /waiting for EXTERNAL_EXECUTION_RESULT for tool call\(s\) e1 \(deploy\)/,
    );
    const shut = pending({ message: message(['c1', 'x']), shutdown: { reason: 'SIGTERM', at: 1 } });
    expect(() => closePendingReply(shut, 'refuse', 'bot', 's1')).toThrow(
      "suspended by a shutdown (SIGTERM); continue it with { type: 'RESUME_REPLY' }",
    );
  });
});

describe("closePendingReply with 'reject-pending'", () => {
  it('answers confirmations as denied and external calls as interrupted, in order, and keeps the calls', () => {
    const p = pending({
      message: message(['c1', 'rm'], ['e1', 'deploy']),
      confirm: [{ id: 'c1', name: 'rm', input: {} }],
      external: [{ id: 'e1', name: 'deploy', input: {} }],
    });
    const closed = closePendingReply(p, 'reject-pending', 'bot', 's1');
    expect(closed.message.content.filter((b) => b.type === 'tool_call').map((b) => b.id)).toEqual(['c1', 'e1']);
    expect(results(closed.message)).toEqual([
      ['c1', 'denied', 'The user sent a new message instead of confirming this call.'],
      ['e1', 'interrupted', 'The user sent a new message before this call was executed.'],
    ]);
  });

  it('after a shutdown, answers the calls that never started as interrupted, and leaves answered ones', () => {
    const m: Msg = {
      ...message(['a', 'x'], ['b', 'y']),
      content: [
        call('a', 'x'),
        { type: 'tool_result', toolCallId: 'a', name: 'x', output: [{ type: 'text', text: 'ok' }], status: 'success' },
        call('b', 'y'),
      ] as Msg['content'],
    };
    const closed = closePendingReply(
      pending({ message: m, shutdown: { reason: 'SIGTERM', at: 1 } }),
      'reject-pending',
      'bot',
      's1',
    );
    expect(results(closed.message)).toEqual([
      ['a', 'success', 'ok'],
      ['b', 'interrupted', 'The user sent a new message before this call was executed.'],
    ]);
  });

  it('gives the new reply a pending_calls_rejected notice naming the old reply and every rejected call', () => {
    const p = pending({
      message: message(['c1', 'rm'], ['e1', 'deploy']),
      confirm: [{ id: 'c1', name: 'rm', input: {} }],
      external: [{ id: 'e1', name: 'deploy', input: {} }],
    });
    const ctx = new ReplyContext('bot', 'r2', 's1', new AbortController().signal, {});
    expect(closePendingReply(p, 'reject-pending', 'bot', 's1').notice(ctx)).toMatchObject({
      type: 'CUSTOM',
      replyId: 'r2',
      source: 'bot',
      name: 'pending_calls_rejected',
      value: { replyId: 'r1', toolCallIds: ['c1', 'e1'] },
    });
  });
});
