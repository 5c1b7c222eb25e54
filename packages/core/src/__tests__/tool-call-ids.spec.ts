// A model that reuses a tool-call id — from an earlier answer (a server numbering its calls
// call_0, call_1... afresh in every answer) or twice in one answer — still has every call
// run and answered: the reused id is replaced by a fresh one, which the conversation and the
// wire then carry. Before, the call was taken for answered: it never ran, and the reply ended
// "completed" with the model's request left unanswered.
import { z } from 'zod';
import { Agent, defineTool } from '../index.js';
import { OpenAIChatModel } from '../model/openai/index.js';
import { assertConsistentConversation, ofType, runReply, ScriptedChatModel } from '../testing/index.js';
import { startOpenAITestServer, type OpenAITestServer } from '../testing/node/index.js';

function counting() {
  const runs: string[] = [];
  const tool = defineTool({
    name: 'lookup',
    description: 'Looks a word up',
    input: z.object({ word: z.string() }),
    execute: ({ word }) => {
      runs.push(word);
      return `found ${word}`;
    },
  });
  return { runs, tool };
}

describe('tool-call ids a model reuses', () => {
  let server: OpenAITestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('an id from an earlier answer, and one used twice in the same answer: every call runs and is answered', async () => {
    const { runs, tool } = counting();
    const agent = new Agent({
      model: new ScriptedChatModel([
        { toolCalls: [{ id: 'call_0', name: 'lookup', input: { word: 'a' } }] },
        {
          toolCalls: [
            { id: 'call_0', name: 'lookup', input: { word: 'b' } },
            { id: 'call_0', name: 'lookup', input: { word: 'c' } },
          ],
        },
        { text: 'done' },
      ]),
      tools: [tool],
    });
    const events = await runReply(agent, 'go');
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(runs).toEqual(['a', 'b', 'c']);
    const ids = ofType(events, 'TOOL_CALL_START').map((e) => e.toolCallId);
    expect(ids[0]).toBe('call_0'); // a first use is kept
    expect(new Set(ids).size).toBe(3);
    expect(ofType(events, 'TOOL_RESULT_END').map((e) => e.toolCallId)).toEqual(ids);
    assertConsistentConversation(agent.context);
  });

  it('over HTTP: the requests that follow carry the fresh ids, each call with its own result', async () => {
    const { runs, tool } = counting();
    server = await startOpenAITestServer({
      script: [
        { toolCalls: [{ id: 'call_0', name: 'lookup', input: { word: 'a' } }] },
        { toolCalls: [{ id: 'call_0', name: 'lookup', input: { word: 'b' } }] },
        { text: 'done' },
      ],
    });
    const agent = new Agent({
      model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url, configuration: { logLevel: 'off' } }),
      tools: [tool],
    });
    const events = await runReply(agent, 'go');
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(runs).toEqual(['a', 'b']);
    const last = server.requests.at(-1)!.body.messages!;
    const called = last.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : []));
    const answered = last.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : []));
    expect(called).toHaveLength(2);
    expect(new Set(called).size).toBe(2);
    expect(answered).toEqual(called);
  });
});
