import { lastValueFrom, map, timer, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent, defineTool, isEvent } from '../../index.js';
import { assertReplyGrammar, ScriptedChatModel } from '../../testing/index.js';
import { TimingMiddleware } from './timing-middleware.js';

const wait = defineTool({
  name: 'wait',
  description: 'Waits for a number of milliseconds',
  input: z.object({ ms: z.number().int().min(0) }),
  execute: ({ ms }) => timer(ms).pipe(map(() => `waited ${ms} ms`)),
});

it('reports how long the tool call took', async () => {
  const model = new ScriptedChatModel(
    [{ toolCalls: [{ name: 'wait', input: { ms: 60 } }] }, { text: 'Done waiting.' }],
    { delayMs: 10 },
  );
  const agent = new Agent({ model, tools: [wait], middlewares: [new TimingMiddleware()] });
  const events = await lastValueFrom(agent.reply('Wait 60 ms').pipe(toArray()));
  assertReplyGrammar(events);
  const toolTimings = events.filter(isEvent('CUSTOM')).filter((e) => e.name === 'timing.tool_call');
  expect((toolTimings[0]!.value as { ms: number }).ms).toBeGreaterThanOrEqual(55);
});
