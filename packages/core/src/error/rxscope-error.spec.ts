import {
  Agent,
  AgentError,
  AgentStateError,
  AgentStreamError,
  AgentShutdownError,
  AgentUsageError,
  InvalidReplyInputError,
  ConversationEditError,
  InMemorySessionStore,
  ModelError,
  OutputInvalidError,
  parseAgentState,
  RxscopeError,
  SessionConflictError,
  SessionStoreError,
} from '../index.js';
import { HttpError } from '../node/index.js';
import { ScriptedChatModel } from '../testing/index.js';

describe('RxscopeError', () => {
  it('is the base of every core error, each with a stable code', () => {
    const errors: [RxscopeError, string][] = [
      [new ModelError('boom'), 'model_error'],
      [new ModelError('slow', { code: 'rate_limited' }), 'rate_limited'],
      [new AgentError({ name: 'ModelError', message: 'x', code: 'timeout' }, 'r1'), 'timeout'],
      [new AgentError({ name: 'Error', message: 'x' }, 'r1'), 'reply_failed'],
      [new AgentUsageError('no'), 'invalid_use'],
      [new AgentShutdownError('shut down'), 'shutting_down'],
      [new OutputInvalidError('bad'), 'output_invalid'],
      [new ConversationEditError('pair'), 'conversation_edit_refused'],
      [new AgentStateError('bad', 'messages[0]'), 'invalid_state'],
      [new SessionConflictError('s', 1, 2), 'session_conflict'],
      [new SessionStoreError('corrupt'), 'session_store'],
      [new AgentStreamError('network', 'down'), 'network'],
      [new HttpError(404, 'gone'), 'http_404'],
      [new HttpError(404, 'gone', 'unknown_session'), 'unknown_session'],
    ];
    // A refinement of AgentUsageError keeps its name (handlers that branch on the name keep working).
    expect(new InvalidReplyInputError('bad')).toMatchObject({ name: 'AgentUsageError', code: 'invalid_input' });
    for (const [error, code] of errors) {
      expect(error).toBeInstanceOf(RxscopeError);
      expect(error).toBeInstanceOf(Error);
      expect([error.name, error.code]).toEqual([error.constructor.name, code]);
    }
  });

  it('lets a caller branch on the code of what call() and the stores really throw', async () => {
    const failing = new Agent({
      name: 'a',
      model: new ScriptedChatModel([{ error: new ModelError('limit', { code: 'rate_limited', status: 429 }) }]),
    });
    const err = await failing.call('hi').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err instanceof RxscopeError && err.code).toBe('rate_limited');

    expect(() => parseAgentState({ version: 3, messages: 'nope' })).toThrow(
      expect.objectContaining({ code: 'invalid_state' }) as Error,
    );

    const store = new InMemorySessionStore();
    const state = new Agent({ name: 'a', model: new ScriptedChatModel([]) }).saveState();
    await store.save('s', state, 0);
    await expect(store.save('s', state, 0)).rejects.toMatchObject({ code: 'session_conflict' });

    expect(() => new Agent({ model: 'gpt-4o' } as never)).toThrow(
      expect.objectContaining({ name: 'AgentUsageError', code: 'invalid_use' }) as Error,
    );
  });
});
