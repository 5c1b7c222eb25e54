import { z } from 'zod';
import { InMemorySessionStore } from '../state/session-store.js';
import { defineTool } from '../tool/tool.js';
import { ScriptedChatModel } from '../testing/index.js';
import { endOf, runReply } from '../__tests__/helpers.js';
import type { Middleware } from '../middleware/middleware.js';
import { Agent } from './agent.js';
import { InvalidUserIdError, SessionForbiddenError } from './user-identity.js';

const whoAmI = defineTool({
  name: 'who_am_i',
  description: '',
  input: z.object({}),
  readOnly: true,
  execute: (_input, toolCtx) => `you are ${toolCtx.userId ?? 'nobody'}`,
});

describe('the user a reply acts for', () => {
  it('reaches ctx.userId in every hook and toolCtx.userId in tools', async () => {
    const seen: string[] = [];
    const spy: Middleware = {
      onAgent: (_a, ctx, input, next) => (seen.push(`agent ${ctx.userId}`), next(input)),
      onModelCall: (_a, ctx, input, next) => (seen.push(`model ${ctx.userId}`), next(input)),
      onActing: (_a, ctx, input, next) => (seen.push(`acting ${ctx.userId}`), next(input)),
    };
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'who_am_i', input: {} }] }, { text: 'ok' }]);
    const agent = new Agent({ model, tools: [whoAmI], middlewares: [spy] });
    await runReply(agent, agent.reply('who?', { userId: 'alice' }));
    expect(seen).toEqual(['agent alice', 'model alice', 'acting alice', 'model alice']);
    expect(JSON.stringify(agent.context[1])).toContain('you are alice');
    // Without one, ctx.userId is undefined.
    const anon = new Agent({ model: new ScriptedChatModel([{ text: 'hi' }]), middlewares: [spy] });
    await runReply(anon, anon.reply('hi'));
    expect(seen.at(-1)).toBe('model undefined');
  });

  it.each([[''], [42], [null], ['x'.repeat(257)]])('refuses userId %p at once, before anything runs', async (bad) => {
    const agent = new Agent({ model: new ScriptedChatModel([{ text: 'never' }]) });
    expect(() => agent.reply('hi', { userId: bad as string })).toThrow(InvalidUserIdError);
    expect(() => agent.reply('hi', { userId: bad as string })).toThrow(/userId must be a non-empty string/);
    // call() rejects (a promise API does not throw).
    expect(() => void agent.call('hi', { userId: bad as string }).catch(() => undefined)).not.toThrow();
    await expect(agent.call('hi', { userId: bad as string })).rejects.toMatchObject({ code: 'invalid_user_id' });
    expect(agent.context).toEqual([]);
  });

  it('permission rules with a userId count only for that user', async () => {
    const deploy = defineTool({
      name: 'deploy',
      description: '',
      input: z.object({}),
      needsApproval: true,
      execute: () => 'deployed',
    });
    const rules = [{ behavior: 'allow' as const, tool: 'deploy', userId: 'admin' }];
    const run = async (userId: string) => {
      const model = new ScriptedChatModel([{ toolCalls: [{ name: 'deploy', input: {} }] }, { text: 'ok' }]);
      const agent = new Agent({ model, tools: [deploy], permissions: { rules } });
      return endOf(await runReply(agent, agent.reply('ship', { userId }))).finishReason;
    };
    expect(await run('admin')).toBe('completed');
    expect(await run('intern')).toBe('awaiting_confirmation');
    // Kept in the state like any rule.
    const agent = new Agent({ model: new ScriptedChatModel([]), permissions: { rules } });
    const restored = new Agent({
      model: new ScriptedChatModel([]),
      state: JSON.parse(JSON.stringify(agent.saveState())),
    });
    expect(restored.permissions.rules).toEqual(rules);
  });

  it('the first user owns the session; another user can neither continue nor resume it, also after a restore from the store', async () => {
    const store = new InMemorySessionStore();
    const model = new ScriptedChatModel([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
    const agent = new Agent({ model, sessionId: 's1', store });
    await runReply(agent, agent.reply('hi', { userId: 'alice' }));
    expect(agent.saveState().owner).toBe('alice');
    await expect(agent.call('let me in', { userId: 'mallory' })).rejects.toThrow(SessionForbiddenError);
    await expect(agent.call('let me in', { userId: 'mallory' })).rejects.toMatchObject({
      code: 'session_forbidden',
      status: 403,
    });
    expect(agent.context).toHaveLength(2); // nothing of mallory's joined the conversation
    expect(endOf(await runReply(agent, agent.reply('again', { userId: 'alice' }))).finishReason).toBe('completed');

    // Another process: the owner comes back with the state from the store.
    const elsewhere = new Agent({ model, sessionId: 's1', store });
    await expect(elsewhere.call('hi', { userId: 'mallory' })).rejects.toThrow(/belongs to another user/);
    expect((await store.load('s1'))?.state.owner).toBe('alice');
  });
});
