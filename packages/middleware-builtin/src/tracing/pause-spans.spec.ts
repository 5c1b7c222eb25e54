// execute_tool spans for calls that waited on a person or an external executor: they cover the
// wait, from the suspension to the result, also when another agent (process) resumes the reply.
import type { HrTime } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Agent, defineTool, isEvent } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { z } from 'zod';
import { run } from '../__tests__/helpers.js';
import { TracingMiddleware } from './index.js';

const ms = (t: HrTime) => t[0] * 1000 + t[1] / 1e6;
const sleep = (n: number) => new Promise((r) => setTimeout(r, n));

const transfer = defineTool({
  name: 'transfer',
  description: 'Sends money',
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: ({ amount }) => `sent ${amount}`,
});
const lookup = defineTool({
  name: 'lookup',
  description: 'Runs in the browser',
  input: z.object({ q: z.string() }),
  external: true,
  execute: () => 'never here',
});

describe('TracingMiddleware: execute_tool spans across a pause', () => {
  let exporter: InMemorySpanExporter;
  let provider: TracerProvider;
  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  });
  afterEach(() => provider.shutdown());

  // The first agent's model calls the tool; the resuming agent's model answers.
  const agentWith = (tool: typeof transfer | typeof lookup, call: object, state?: unknown) =>
    new Agent({
      name: 'bank',
      model: new ScriptedChatModel(
        state === undefined ? [{ toolCalls: [{ id: 'c1', name: tool.name, input: call }] }] : [{ text: 'Done.' }],
      ),
      tools: [tool],
      middlewares: [new TracingMiddleware({ tracerProvider: provider })],
      ...(state !== undefined && { state: JSON.parse(JSON.stringify(state)) as never }),
    });
  const toolSpans = (): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name.startsWith('execute_tool'));
  const resumedReply = () => exporter.getFinishedSpans().filter((s) => s.name === 'invoke_agent bank')[1]!;

  it('a confirmed call: from the suspension to its result, marked confirmed, under the resumed reply', async () => {
    const first = agentWith(transfer, { amount: 5 });
    const paused = await run(first, 'pay');
    expect(paused.end.finishReason).toBe('awaiting_confirmation');
    const suspendedAt = Date.now();
    await sleep(40);
    const second = agentWith(transfer, { amount: 5 }, first.saveState());
    const resumed = await run(second, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: 'c1', confirmed: true }],
    });
    expect(resumed.end.finishReason).toBe('completed');

    const [span] = toolSpans();
    expect(span).toBeDefined();
    expect(span!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'transfer',
      'gen_ai.tool.call.id': 'c1',
      'rxscope.tool.confirmed': true,
      'rxscope.tool.status': 'success',
    });
    expect(ms(span!.startTime)).toBeLessThanOrEqual(suspendedAt + 1);
    expect(ms(span!.endTime) - ms(span!.startTime)).toBeGreaterThanOrEqual(39);
    expect(span!.parentSpanContext?.spanId).toBe(resumedReply().spanContext().spanId);
  });

  it('an externally executed call: a span from the suspension to the result, marked external, failed on isError', async () => {
    const first = agentWith(lookup, { q: 'x' });
    const paused = await run(first, 'find');
    expect(paused.events.find(isEvent('REQUIRE_EXTERNAL_EXECUTION'))!.toolCalls[0]!.id).toBe('c1');
    const suspendedAt = Date.now();
    await sleep(40);
    const second = agentWith(lookup, { q: 'x' }, first.saveState());
    await run(second, {
      type: 'EXTERNAL_EXECUTION_RESULT',
      results: [{ toolCallId: 'c1', output: 'no such page', isError: true }],
    });

    const spans = toolSpans();
    expect(spans).toHaveLength(1);
    expect(spans[0]!.attributes).toMatchObject({
      'gen_ai.tool.name': 'lookup',
      'rxscope.tool.external': true,
      'rxscope.tool.status': 'error',
      'error.type': 'tool_error',
    });
    expect(ms(spans[0]!.startTime)).toBeLessThanOrEqual(suspendedAt + 1);
    expect(ms(spans[0]!.endTime) - ms(spans[0]!.startTime)).toBeGreaterThanOrEqual(39);
  });
});
