import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { AgentUsageError } from '../agent/errors.js';
import { textOfMsg, toolResultsOf } from '../message/msg.js';
import { defineTool } from '../tool/tool.js';
import { assertConsistentConversation, ScriptedChatModel } from '../testing/index.js';
import { endOf, ofType, runReply } from './helpers.js';

function fixture() {
  const ran: string[] = [];
  const lookup = defineTool({
    name: 'lookup',
    description: 'reads a record',
    input: z.object({ id: z.string() }),
    readOnly: true,
    execute: ({ id }) => (ran.push(`lookup ${id}`), `record ${id}`),
  });
  const transfer = defineTool({
    name: 'transfer',
    description: 'moves money',
    input: z.object({ to: z.string(), amount: z.number().positive() }),
    needsApproval: true,
    execute: ({ to, amount }) => (ran.push(`transfer ${amount} to ${to}`), `sent ${amount} to ${to}`),
  });
  const sign = defineTool({
    name: 'sign',
    description: 'signed on the user device',
    input: z.object({ doc: z.string() }),
    external: true,
  });
  return { ran, tools: [lookup, transfer, sign] };
}

describe('confirmation', () => {
  it('suspends with REQUIRE_USER_CONFIRM after running the calls that need no confirmation, then resumes the same reply', async () => {
    const { ran, tools } = fixture();
    const model = new ScriptedChatModel([
      {
        text: 'Checking.',
        toolCalls: [
          { id: 'l1', name: 'lookup', input: { id: 'acc-1' } },
          { id: 't1', name: 'transfer', input: { to: 'bob', amount: 50 } },
        ],
      },
      { text: 'Done: sent 50 to bob.' },
    ]);
    const agent = new Agent({ model, tools });
    const first = await runReply(agent, agent.reply('pay bob 50'));

    expect(endOf(first).finishReason).toBe('awaiting_confirmation');
    expect(ofType(first, 'REQUIRE_USER_CONFIRM')).toEqual([
      expect.objectContaining({
        toolCalls: [
          {
            id: 't1',
            name: 'transfer',
            input: { to: 'bob', amount: 50 },
            reason: '"transfer" needs approval before it runs.',
          },
        ],
      }),
    ]);
    expect(ran).toEqual(['lookup acc-1']); // the read-only call ran, the transfer waits
    expect(agent.pending?.confirm.map((c) => c.id)).toEqual(['t1']);
    expect(agent.context.map((m) => m.role)).toEqual(['user']); // the suspended reply is not in the conversation yet
    const replyId = first[0]!.replyId;

    const second = await runReply(
      agent,
      agent.reply({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 't1', confirmed: true }] }),
    );
    expect(second.every((e) => e.replyId === replyId)).toBe(true);
    expect(second[1]).toMatchObject({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 't1', confirmed: true }] });
    expect(endOf(second).finishReason).toBe('completed');
    expect(ran).toEqual(['lookup acc-1', 'transfer 50 to bob']);
    expect(agent.pending).toBeUndefined();
    const reply = agent.context[1]!;
    expect(reply.id).toBe(replyId);
    expect(toolResultsOf(reply).map((r) => [r.toolCallId, r.status])).toEqual([
      ['l1', 'success'],
      ['t1', 'success'],
    ]);
    expect(textOfMsg(reply)).toBe('Checking.Done: sent 50 to bob.');
  });

  it('a rejection with a reason reaches the model as a denied result', async () => {
    const { ran, tools } = fixture();
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 't1', name: 'transfer', input: { to: 'eve', amount: 9000 } }] },
      { text: 'OK, cancelled.' },
    ]);
    const agent = new Agent({ model, tools });
    await runReply(agent, agent.reply('pay eve'));
    await runReply(
      agent,
      agent.reply({
        type: 'USER_CONFIRM_RESULT',
        results: [{ toolCallId: 't1', confirmed: false, reason: 'eve is a scammer' }],
      }),
    );
    expect(ran).toEqual([]);
    const result = toolResultsOf(agent.context[1]!)[0]!;
    expect(result).toMatchObject({
      status: 'denied',
      output: [{ type: 'text', text: 'The user rejected this call: eve is a scammer' }],
    });
    expect(JSON.stringify(model.requests[1]!.messages)).toContain('eve is a scammer');
  });

  it('an edited input is validated again: an invalid edit is refused and changes nothing, a valid one runs', async () => {
    const { ran, tools } = fixture();
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 't1', name: 'transfer', input: { to: 'bob', amount: 500 } }] },
      { text: 'Sent 5.' },
    ]);
    const agent = new Agent({ model, tools });
    await runReply(agent, agent.reply('pay bob'));
    const bad = lastValueFrom(
      agent.reply({
        type: 'USER_CONFIRM_RESULT',
        results: [{ toolCallId: 't1', confirmed: true, input: { to: 'bob', amount: -5 } }],
      }),
    );
    await expect(bad).rejects.toThrow(AgentUsageError);
    await expect(bad).rejects.toThrow(
      /^Cannot resume with USER_CONFIRM_RESULT: the edited input of t1 \(transfer\) is invalid: amount: .+\. Correct it and confirm again, or reject the call\.$/,
    );
    await expect(bad).rejects.not.toThrow(/call the tool again/);
    expect(agent.pending?.confirm.map((c) => c.id)).toEqual(['t1']);
    await runReply(
      agent,
      agent.reply({
        type: 'USER_CONFIRM_RESULT',
        results: [{ toolCallId: 't1', confirmed: true, input: { to: 'bob', amount: 5 } }],
      }),
    );
    expect(ran).toEqual(['transfer 5 to bob']);
  });

  it('"always allow" adds a rule that persists: the next call of that tool runs without asking', async () => {
    const { ran, tools } = fixture();
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 't1', name: 'transfer', input: { to: 'bob', amount: 1 } }] },
      { text: 'sent' },
      { toolCalls: [{ id: 't2', name: 'transfer', input: { to: 'bob', amount: 2 } }] },
      { text: 'sent again' },
    ]);
    const agent = new Agent({ model, tools });
    await runReply(agent, agent.reply('pay bob 1'));
    await runReply(
      agent,
      agent.reply({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 't1', confirmed: true, alwaysAllow: true }] }),
    );
    expect(agent.saveState().permissions.rules).toEqual([{ behavior: 'allow', tool: 'transfer' }]);
    const events = await runReply(agent, agent.reply('pay bob 2'));
    expect(endOf(events).finishReason).toBe('completed');
    expect(ran).toEqual(['transfer 1 to bob', 'transfer 2 to bob']);
  });

  it('refuses resumes that do not match the pending calls, with a clear error, changing nothing', async () => {
    const { tools } = fixture();
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 't1', name: 'transfer', input: { to: 'bob', amount: 1 } },
          { id: 't2', name: 'transfer', input: { to: 'al', amount: 2 } },
        ],
      },
    ]);
    const agent = new Agent({ model, tools });
    const first = await runReply(agent, agent.reply('pay'));
    const before = JSON.stringify({ ...agent.saveState(), savedAt: 0 });
    const attempt = (input: Parameters<Agent['reply']>[0]) => lastValueFrom(agent.reply(input));
    await expect(
      attempt({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 't1', confirmed: true }] }),
    ).rejects.toThrow(/missing: t2/);
    await expect(
      attempt({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 'zz', confirmed: true }] }),
    ).rejects.toThrow(/unknown tool call id "zz"; pending: t1, t2/);
    await expect(
      attempt({
        type: 'USER_CONFIRM_RESULT',
        results: [
          { toolCallId: 't1', confirmed: true },
          { toolCallId: 't1', confirmed: true },
        ],
      }),
    ).rejects.toThrow(/answered twice/);
    await expect(
      attempt({
        type: 'USER_CONFIRM_RESULT',
        replyId: 'reply_other',
        results: [
          { toolCallId: 't1', confirmed: true },
          { toolCallId: 't2', confirmed: true },
        ],
      }),
    ).rejects.toThrow(new RegExp(`suspended reply is ${first[0]!.replyId}`));
    await expect(
      attempt({ type: 'EXTERNAL_EXECUTION_RESULT', results: [{ toolCallId: 't1', output: 'x' }] }),
    ).rejects.toThrow(/waiting for USER_CONFIRM_RESULT/);
    expect(JSON.stringify({ ...agent.saveState(), savedAt: 0 })).toBe(before);
    expect(agent.busy).toBe(false);
  });
});

describe('external execution', () => {
  it('suspends with REQUIRE_EXTERNAL_EXECUTION and resumes with the supplied results', async () => {
    const { tools } = fixture();
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 's1', name: 'sign', input: { doc: 'lease.pdf' } }] },
      { text: 'Signed.' },
    ]);
    const agent = new Agent({ model, tools });
    const first = await runReply(agent, agent.reply('sign my lease'));
    expect(endOf(first).finishReason).toBe('awaiting_external_execution');
    expect(ofType(first, 'REQUIRE_EXTERNAL_EXECUTION')[0]!.toolCalls).toEqual([
      { id: 's1', name: 'sign', input: { doc: 'lease.pdf' } },
    ]);
    const second = await runReply(
      agent,
      agent.reply({ type: 'EXTERNAL_EXECUTION_RESULT', results: [{ toolCallId: 's1', output: 'signature #42' }] }),
    );
    expect(endOf(second).finishReason).toBe('completed');
    expect(toolResultsOf(agent.context[1]!)[0]).toMatchObject({
      toolCallId: 's1',
      status: 'success',
      output: [{ type: 'text', text: 'signature #42' }],
    });
  });

  it('mixed step: a read-only call runs, a confirmation and an external call wait, each resumed in turn', async () => {
    const { ran, tools } = fixture();
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 'l1', name: 'lookup', input: { id: 'doc-9' } },
          { id: 't1', name: 'transfer', input: { to: 'notary', amount: 30 } },
          { id: 's1', name: 'sign', input: { doc: 'doc-9' } },
        ],
      },
      { text: 'All three done.' },
    ]);
    const agent = new Agent({ model, tools });
    const first = await runReply(agent, agent.reply('close the deal'));
    expect(ran).toEqual(['lookup doc-9']);
    expect(endOf(first).finishReason).toBe('awaiting_confirmation');
    expect(ofType(first, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls.map((c) => c.id)).toEqual(['t1']);
    expect(ofType(first, 'REQUIRE_EXTERNAL_EXECUTION')[0]!.toolCalls.map((c) => c.id)).toEqual(['s1']);

    const second = await runReply(
      agent,
      agent.reply({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 't1', confirmed: true }] }),
    );
    expect(ran).toEqual(['lookup doc-9', 'transfer 30 to notary']);
    expect(endOf(second).finishReason).toBe('awaiting_external_execution');
    expect(ofType(second, 'REQUIRE_EXTERNAL_EXECUTION')[0]!.toolCalls.map((c) => c.id)).toEqual(['s1']);

    const third = await runReply(
      agent,
      agent.reply({
        type: 'EXTERNAL_EXECUTION_RESULT',
        results: [{ toolCallId: 's1', output: 'signed', isError: false }],
      }),
    );
    expect(endOf(third).finishReason).toBe('completed');
    expect(toolResultsOf(agent.context[1]!).map((r) => r.toolCallId)).toEqual(['l1', 't1', 's1']);
    expect(model.requests).toHaveLength(2);
    expect(new Set([first, second, third].map((events) => events[0]!.replyId)).size).toBe(1);
  });
});

describe('a new message while a reply waits', () => {
  it('by default answers the pending calls as rejected and starts a new reply', async () => {
    const { ran, tools } = fixture();
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 't1', name: 'transfer', input: { to: 'bob', amount: 1 } }] },
      { text: 'Sure, what else?' },
    ]);
    const agent = new Agent({ model, tools });
    const first = await runReply(agent, agent.reply('pay bob'));
    const events = await runReply(agent, agent.reply('actually, never mind'));
    expect(events[0]!.replyId).not.toBe(first[0]!.replyId);
    expect(ofType(events, 'CUSTOM')[0]).toMatchObject({
      name: 'pending_calls_rejected',
      value: { replyId: first[0]!.replyId, toolCallIds: ['t1'] },
    });
    expect(ran).toEqual([]);
    expect(agent.pending).toBeUndefined();
    expect(toolResultsOf(agent.context[1]!)[0]).toMatchObject({ toolCallId: 't1', status: 'denied' });
    expect(agent.context.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    assertConsistentConversation(model.requests[1]!.messages);
  });

  it("with whilePending: 'refuse' the message is refused with a clear error and nothing changes", async () => {
    const { tools } = fixture();
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 't1', name: 'transfer', input: { to: 'bob', amount: 1 } }] },
    ]);
    const agent = new Agent({ model, tools, whilePending: 'refuse' });
    await runReply(agent, agent.reply('pay bob'));
    await expect(lastValueFrom(agent.reply('hello?'))).rejects.toThrow(
      /waiting for USER_CONFIRM_RESULT for tool call\(s\) t1 \(transfer\)/,
    );
    expect(agent.pending?.confirm).toHaveLength(1);
    expect(agent.context).toHaveLength(1);
  });
});

describe('suspended state', () => {
  it('a snapshot taken while waiting restores into a new agent that resumes the same reply', async () => {
    const { ran, tools } = fixture();
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 't1', name: 'transfer', input: { to: 'bob', amount: 7 } }] },
      { text: 'sent 7' },
    ]);
    const agent = new Agent({ model, tools, sessionId: 'sess' });
    const first = await runReply(agent, agent.reply('pay bob 7'));
    const snapshot = JSON.parse(JSON.stringify(agent.saveState())) as unknown;
    expect(snapshot).toMatchObject({
      pending: { replyId: first[0]!.replyId, iteration: 1, toolSteps: 1, confirm: [{ id: 't1' }] },
    });

    const revived = new Agent({ model, tools, state: snapshot });
    const events = await runReply(
      revived,
      revived.reply({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 't1', confirmed: true }] }),
    );
    expect(events[0]!.replyId).toBe(first[0]!.replyId);
    expect(ran).toEqual(['transfer 7 to bob']);
    expect(textOfMsg(revived.context[1]!)).toBe('sent 7');
  });

  it('maxIters counts across a suspension', async () => {
    const { tools } = fixture();
    const model = new ScriptedChatModel((r) =>
      r.toolChoice === 'none'
        ? { text: 'out of steps' }
        : { toolCalls: [{ name: 'transfer', input: { to: 'x', amount: 1 } }] },
    );
    const agent = new Agent({ model, tools, maxIters: 2 });
    await runReply(agent, agent.reply('go'));
    const confirm = () => ({
      type: 'USER_CONFIRM_RESULT' as const,
      results: agent.pending!.confirm.map((c) => ({ toolCallId: c.id, confirmed: true })),
    });
    await runReply(agent, agent.reply(confirm()));
    const last = await runReply(agent, agent.reply(confirm()));
    expect(endOf(last).finishReason).toBe('max_iters');
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto', 'none']);
  });

  it('events of a resumed reply fold into the stored message together with those before the suspension', async () => {
    const { tools } = fixture();
    const model = new ScriptedChatModel([
      { text: 'One moment.', toolCalls: [{ id: 't1', name: 'transfer', input: { to: 'bob', amount: 3 } }] },
      { text: 'Sent.' },
    ]);
    const agent = new Agent({ model, tools });
    const all = [
      ...(await lastValueFrom(agent.reply('pay').pipe(toArray()))),
      ...(await lastValueFrom(
        agent.reply({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 't1', confirmed: true }] }).pipe(toArray()),
      )),
    ];
    const { createReplyReducer } = await import('../event/reducer.js');
    const reducer = createReplyReducer();
    for (const e of all) reducer.apply(e);
    expect(reducer.message()).toEqual(agent.context[1]);
  });
});
