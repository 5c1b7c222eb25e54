import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { EventType } from '@ag-ui/core';
import { Agent } from '../agent/agent.js';
import { AgentUsageError } from '../agent/errors.js';
import { defineTool } from '../tool/tool.js';
import { ToolQuestion, type ToolAnswer } from '../tool/tool-question.js';
import { ScriptedChatModel } from '../testing/index.js';
import { toAgUiEvents } from '../transport/ag-ui/to-ag-ui-events.js';
import { endOf, ofType, runReply } from './helpers.js';

const accountSchema = {
  type: 'object',
  properties: { account: { type: 'string', minLength: 2 } },
  required: ['account'],
} as const;

/** A tool that asks which account to use (after reporting progress), and answers from what it was told. */
function fixture() {
  const answers: (ToolAnswer | undefined)[] = [];
  const pay = defineTool({
    name: 'pay',
    description: 'pays an amount',
    input: z.object({ amount: z.number() }),
    execute: ({ amount }, toolCtx) => {
      answers.push(toolCtx.answer);
      toolCtx.emit('looking up accounts');
      const answer = toolCtx.answer;
      if (!answer) throw new ToolQuestion({ message: 'From which account?', schema: accountSchema, kind: 'test' });
      if (answer.cancelled) return 'cancelled by the user';
      if (!answer.confirmed) return `declined: ${answer.reason ?? ''}`;
      return `paid ${amount} from ${(answer.input as { account: string }).account}`;
    },
  });
  const model = () =>
    new ScriptedChatModel([{ toolCalls: [{ id: 'p1', name: 'pay', input: { amount: 5 } }] }, { text: 'Done.' }]);
  return { pay, answers, model };
}

describe('a running tool asks a person (ToolQuestion)', () => {
  it('suspends with the question, refuses an answer that fails its schema, runs again with a good one', async () => {
    const { pay, answers, model } = fixture();
    const agent = new Agent({ model: model(), tools: [pay] });
    const first = await runReply(agent, agent.reply('pay 5'));
    expect(endOf(first).finishReason).toBe('awaiting_confirmation');
    expect(ofType(first, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls).toEqual([
      {
        id: 'p1',
        name: 'pay',
        input: { amount: 5 },
        reason: 'From which account?',
        question: { message: 'From which account?', schema: accountSchema, kind: 'test' },
      },
    ]);
    // The block the run opened (it reported progress) is closed as "not a result".
    expect(ofType(first, 'TOOL_RESULT_END')).toEqual([
      expect.objectContaining({ toolCallId: 'p1', status: 'interrupted', awaitingAnswer: true }),
    ]);
    expect(agent.saveState().pending?.message.content.filter((b) => b.type === 'tool_result')).toEqual([]);

    const stateOf = () => JSON.stringify({ ...agent.saveState(), savedAt: 0 }); // savedAt: when it was read
    const before = stateOf();
    const bad = {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: 'p1', confirmed: true, input: { account: 'x' } }],
    };
    const refused = lastValueFrom(agent.reply(bad as never));
    await expect(refused).rejects.toThrow(AgentUsageError);
    await expect(refused).rejects.toThrow(/account: must NOT have fewer than 2 characters/);
    expect(stateOf()).toBe(before);

    const second = await runReply(
      agent,
      agent.reply({
        type: 'USER_CONFIRM_RESULT',
        results: [{ toolCallId: 'p1', confirmed: true, input: { account: 'acc-9' } }],
      }),
    );
    expect(endOf(second).finishReason).toBe('completed');
    expect(ofType(second, 'TOOL_RESULT_END')).toEqual([
      expect.objectContaining({
        toolCallId: 'p1',
        status: 'success',
        output: [{ type: 'text', text: 'paid 5 from acc-9' }],
      }),
    ]);
    expect(answers[1]).toMatchObject({
      confirmed: true,
      input: { account: 'acc-9' },
      question: { message: 'From which account?' },
    });
  });

  it('decline and cancel reach the tool (it runs again and decides), and the answer survives a restore from the state', async () => {
    for (const [answer, text] of [
      [{ confirmed: false, reason: 'wrong person' }, 'declined: wrong person'],
      [{ confirmed: false, cancelled: true }, 'cancelled by the user'],
    ] as const) {
      const { pay, model } = fixture();
      const agent = new Agent({ model: model(), tools: [pay] });
      await runReply(agent, agent.reply('pay 5'));
      const restored = new Agent({ model: model(), tools: [pay], state: agent.saveState() });
      const events = await runReply(
        restored,
        restored.reply({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 'p1', ...answer }] }),
      );
      expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
        status: 'success',
        output: [{ type: 'text', text }],
      });
    }
  });

  it('AG-UI shows the question as a user_input interrupt whose response schema holds the question schema', async () => {
    const { pay, model } = fixture();
    const agent = new Agent({ model: model(), tools: [pay] });
    const events = await lastValueFrom(agent.reply('pay 5').pipe(toAgUiEvents(), toArray()));
    const finished = events.find((e) => e.type === EventType.RUN_FINISHED) as unknown as {
      outcome: { type: string; interrupts: unknown[] };
    };
    expect(finished.outcome.type).toBe('interrupt');
    expect(finished.outcome.interrupts[0]).toMatchObject({
      reason: 'user_input',
      message: 'From which account?',
      responseSchema: { properties: { input: expect.objectContaining({ required: ['account'] }) } },
    });
    // The stopped run is not shown as the call's result.
    expect(events.filter((e) => e.type === EventType.TOOL_CALL_RESULT)).toEqual([]);
  });
});
