// Tracing + Budget + Retry + RateLimit + PiiRedaction together, one shared instance of each, on
// 20 agents replying concurrently through the real OpenAIChatModel and the OpenAI-compatible test
// server: spans, budgets and redaction are checked per reply.
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Agent, type AgentEvent, defineTool, type Middleware } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { assertConsistentConversation, assertReplyGrammar } from '@rxscope/core/testing';
import { startOpenAITestServer, type OpenAITestServer, type ServerTurn } from '@rxscope/core/testing/node';
import { defer, finalize, lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { PiiRedactionMiddleware } from '../pii-redaction/index.js';
import { RateLimitMiddleware } from '../rate-limit/index.js';
import { ReplyBudgetMiddleware } from '../reply-budget/index.js';
import { RetryMiddleware } from '../retry/index.js';
import { TracingMiddleware } from '../tracing/index.js';

const AGENTS = 20;
const MAX_CONCURRENT = 5;

/** Counts model calls in flight right around the real call (innermost layer). */
function inFlightProbe(stats: { now: number; peak: number }): Middleware {
  return {
    key: 'probe',
    onModelCall: (_a, _c, input, next) =>
      defer(() => {
        stats.now++;
        stats.peak = Math.max(stats.peak, stats.now);
        return next(input).pipe(finalize(() => stats.now--));
      }),
  };
}

describe('built-in middlewares together on 20 concurrent agents', () => {
  jest.setTimeout(60_000);
  let server: OpenAITestServer;
  afterEach(async () => server?.close());

  it('keeps spans, budgets and redaction per reply', async () => {
    const seen = new Map<string, number>();
    server = await startOpenAITestServer({
      chunkDelayMs: 2,
      handler: (request): ServerTurn => {
        const body = JSON.stringify(request.body.messages);
        const who = /agent-(\d+)/.exec(body)?.[0] ?? 'unknown';
        const n = seen.get(who) ?? 0;
        seen.set(who, n + 1);
        if (n === 0) return { fault: 'server_error' }; // every agent's first attempt fails once
        if (n === 1)
          return { text: 'Looking it up.', toolCalls: [{ id: `call_${who}`, name: 'lookup', input: { who } }] };
        return { text: ['Write to jane', '.doe@exa', `mple.com about ${who}.`] };
      },
    });
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const stats = { now: 0, peak: 0 };
    const middlewares: Middleware[] = [
      new TracingMiddleware({ tracerProvider }),
      new ReplyBudgetMiddleware({ tokenBudget: 1 }),
      new PiiRedactionMiddleware(),
      new RetryMiddleware({ maxRetries: 2, initialDelayMs: 1, jitter: 0 }),
      new RateLimitMiddleware({ maxConcurrent: MAX_CONCURRENT }),
      inFlightProbe(stats),
    ];
    const lookup = defineTool({
      name: 'lookup',
      description: 'Finds a customer record',
      input: z.object({ who: z.string() }),
      readOnly: true,
      execute: ({ who }) => `${who} prefers e-mail`,
    });
    const model = new OpenAIChatModel({ model: 'test-model', apiKey: 'test', baseURL: server.url });
    const agents = Array.from(
      { length: AGENTS },
      (_, i) => new Agent({ name: `agent-${i}`, model, tools: [lookup], middlewares }),
    );

    const replies = await Promise.all(
      agents.map((agent) =>
        lastValueFrom(agent.reply(`I am ${agent.name}, my e-mail is bob.${agent.name}@example.org`).pipe(toArray())),
      ),
    );

    expect(stats.peak).toBeLessThanOrEqual(MAX_CONCURRENT);
    expect(stats.peak).toBeGreaterThan(1); // the gate let calls overlap, it did not serialise them
    const spans = exporter.getFinishedSpans();
    replies.forEach((events: AgentEvent[], i) => {
      const name = `agent-${i}`;
      const agent = agents[i]!;
      expect(assertReplyGrammar(events).finishReason).toBe('completed');
      assertConsistentConversation(agent.context);
      expect(events.every((e) => e.source === name)).toBe(true);

      // Retry: the first attempt failed with a 500 and was retried.
      expect(seen.get(name)).toBe(3);
      // Budget: spent after the tool step, so the answer step got the wrap-up.
      expect(events.some((e) => e.type === 'CUSTOM' && e.name === 'reply_budget.exhausted')).toBe(true);
      const mine = server.requests.filter((r) => JSON.stringify(r.body.messages).includes(`I am ${name},`));
      expect(mine.map((r) => r.body.tool_choice ?? 'auto').slice(-1)).toEqual(['none']);
      // PII: the user's address never reached the server; the streamed answer is redacted.
      expect(JSON.stringify(mine.map((r) => r.body))).not.toContain(`bob.${name}@example.org`);
      const text = events.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : [])).join('');
      expect(text).toBe(`Looking it up.Write to [EMAIL] about ${name}.`);
      expect(JSON.stringify(agent.context)).not.toContain('jane.doe@example.com');

      // Tracing: one reply span for this agent, its model-call and tool spans nested under it.
      const replySpans = spans.filter((s) => s.name === `invoke_agent ${name}`);
      expect(replySpans).toHaveLength(1);
      const root = replySpans[0]!;
      const children = spans.filter((s: ReadableSpan) => s.parentSpanContext?.spanId === root.spanContext().spanId);
      // One chat span per model call (tracing is outside retry): the first carries the failed attempt.
      const chats = children
        .filter((s) => s.name === 'chat test-model')
        .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
      expect(chats).toHaveLength(2);
      // The first attempt failed and the retry succeeded: the operation succeeded, so no span keeps an exception.
      expect(chats.flatMap((c) => c.events.map((e) => e.name))).not.toContain('exception');
      expect(children.filter((s) => s.name === 'execute_tool lookup')).toHaveLength(1);
      expect(root.attributes['gen_ai.agent.name']).toBe(name);
      expect(children.every((s) => s.spanContext().traceId === root.spanContext().traceId)).toBe(true);
    });
    await server.waitForConnections(0);
  });
});
