/**
 * Property-based tests of the loop: random middleware stacks (pass-through, mapping,
 * short-circuiting, retrying, throwing, delaying layers on random hooks) over random scripted
 * conversations (text, tool calls of fast, slow and failing tools, model failures), cut at random
 * points by `interrupt()` or by unsubscribing. Whatever fast-check draws, a user relies on:
 * - a reply that ran to its end obeys the stream grammar;
 * - every layer's subscription is torn down exactly once;
 * - the conversation left behind has no tool call without its result, and the saved state is
 *   JSON-serialisable, loads back equal and builds a new agent;
 * - the same script and stack give the same events (types, in order).
 * Counterexamples fast-check found and shrank are kept as plain regression tests at the end.
 */
import fc from 'fast-check';
import { asapScheduler, catchError, defer, map, Observable, observeOn, of, retry, type Subscription } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import type { AgentEvent } from '../event/events.js';
import { ModelError } from '../model/model-error.js';
import type { RuntimeContext } from '../middleware/context.js';
import type { ActingInput, Middleware } from '../middleware/middleware.js';
import { parseAgentState } from '../state/snapshot.js';
import { defineTool } from '../tool/tool.js';
import { assertConsistentConversation, assertReplyGrammar, ScriptedChatModel } from '../testing/index.js';
import type { ScriptedTurn } from '../testing/index.js';

// ── The world the properties draw from ──────────────────────────────────────────────────────────

const tools = [
  defineTool({
    name: 'echo',
    description: 'echoes',
    input: z.object({ v: z.string() }),
    readOnly: true,
    execute: ({ v }) => `echo ${v}`,
  }),
  defineTool({
    name: 'slow',
    description: 'answers after a tick',
    input: z.object({ v: z.string() }),
    execute: ({ v }) => new Promise<string>((resolve) => setTimeout(() => resolve(`slow ${v}`), 1)),
  }),
  defineTool({
    name: 'boom',
    description: 'always fails',
    input: z.object({ v: z.string() }),
    execute: () => {
      throw new Error('boom');
    },
  }),
];

type TurnSpec =
  { kind: 'text'; chunks: string[] } | { kind: 'calls'; names: string[] } | { kind: 'fail'; retryable: boolean };
type LayerKind = 'pass' | 'map' | 'short' | 'retry' | 'throw' | 'delay';
type Hook = 'onAgent' | 'onReasoning' | 'onActing' | 'onModelCall';
type LayerSpec = { kind: LayerKind; hook: Hook };
type Cut = { kind: 'none' } | { kind: 'interrupt' | 'unsubscribe'; afterEvents: number };

const turnArb: fc.Arbitrary<TurnSpec> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      chunks: fc.array(fc.string({ maxLength: 4 }), { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('calls' as const),
      names: fc.array(fc.constantFrom('echo', 'slow', 'boom', 'missing'), { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fail' as const), retryable: fc.boolean() }) },
);
const layerArb: fc.Arbitrary<LayerSpec> = fc.record({
  kind: fc.constantFrom<LayerKind>('pass', 'map', 'short', 'retry', 'throw', 'delay'),
  hook: fc.constantFrom<Hook>('onAgent', 'onReasoning', 'onActing', 'onModelCall'),
});
const cutArb: fc.Arbitrary<Cut> = fc.oneof(
  fc.constant<Cut>({ kind: 'none' }),
  fc.record({ kind: fc.constantFrom('interrupt' as const, 'unsubscribe' as const), afterEvents: fc.nat({ max: 40 }) }),
);

/** The script: the drawn turns, then a closing text turn (so a reply that keeps calling tools ends). */
function script(turns: readonly TurnSpec[]): ScriptedTurn[] {
  let n = 0;
  const out = turns.map((t): ScriptedTurn => {
    if (t.kind === 'text') return { text: t.chunks };
    if (t.kind === 'fail')
      return { error: new ModelError('scripted failure', { code: 'server_error', retryable: t.retryable }) };
    return { toolCalls: t.names.map((name) => ({ id: `c${++n}`, name, input: { v: String(n) } })) };
  });
  return [...out, { text: 'done' }, { text: 'spare' }, { text: 'spare' }];
}

/** Counts the subscriptions each layer made and the teardowns they got. */
class Ledger {
  subscribed = 0;
  tornDown = 0;

  track(source: Observable<AgentEvent>): Observable<AgentEvent> {
    return new Observable<AgentEvent>((subscriber) => {
      this.subscribed++;
      const inner = source.subscribe(subscriber);
      return () => {
        this.tornDown++;
        inner.unsubscribe();
      };
    });
  }
}

type Next = (input: unknown) => Observable<AgentEvent>;

/** What one drawn layer does with its phase. */
function behaviour(
  spec: LayerSpec,
  key: string,
  ctx: RuntimeContext,
  input: unknown,
  next: Next,
): Observable<AgentEvent> {
  switch (spec.kind) {
    case 'map':
      // A mapping layer that keeps the grammar: it tags every event it sees.
      return next(input).pipe(map((e) => ({ ...e, metadata: { ...e.metadata, [key]: true } })));
    case 'retry':
      return next(input).pipe(retry({ count: 1 }));
    case 'delay':
      return next(input).pipe(observeOn(asapScheduler));
    case 'throw':
      throw new Error(`${key} failed`);
    case 'short':
      if (spec.hook === 'onActing') {
        // Answers the call itself, without running the tool (a guard).
        const call = (input as ActingInput).toolCall;
        const blockId = `blk_short_${call.id}`;
        return of(
          ctx.event('TOOL_RESULT_START', { blockId, toolCallId: call.id, name: call.name }),
          ctx.event('TOOL_RESULT_END', {
            blockId,
            toolCallId: call.id,
            status: 'denied',
            output: [{ type: 'text', text: 'not now' }],
          }),
        );
      }
      return next(input);
    case 'pass':
      return next(input);
  }
}

function layer(spec: LayerSpec, i: number, ledger: Ledger): Middleware {
  const key = `layer-${i}-${spec.kind}-${spec.hook}`;
  const hook = (_agent: Agent, ctx: RuntimeContext, input: unknown, next: Next) =>
    ledger.track(defer(() => behaviour(spec, key, ctx, input, next)));
  return { key, [spec.hook]: hook };
}

interface Outcome {
  readonly events: AgentEvent[];
  readonly completed: boolean;
  readonly agent: Agent;
  readonly ledger: Ledger;
}

/** Runs one reply of a fresh agent, cut as drawn; resolves once everything has settled. */
function run(turns: readonly TurnSpec[], layers: readonly LayerSpec[], cut: Cut): Promise<Outcome> {
  const ledger = new Ledger();
  const agent = new Agent({
    name: 'prop',
    model: new ScriptedChatModel(script(turns)),
    tools,
    maxIters: 4,
    middlewares: layers.map((l, i) => layer(l, i, ledger)),
  });
  const events: AgentEvent[] = [];
  return new Promise<Outcome>((resolve) => {
    let done = false;
    const settle = (completed: boolean) => {
      if (done) return;
      done = true;
      // Let teardowns and detached work (a tool's timer) finish before looking at the agent.
      setTimeout(() => resolve({ events, completed, agent, ledger }), 5);
    };
    const sub: Subscription = agent
      .reply('go')
      .pipe(catchError(() => of<AgentEvent>()))
      .subscribe({
        next: (e) => {
          events.push(e);
          if (cut.kind !== 'none' && events.length === cut.afterEvents + 1) {
            if (cut.kind === 'interrupt') agent.interrupt('cut by the property');
            else {
              queueMicrotask(() => {
                sub.unsubscribe();
                settle(false);
              });
            }
          }
        },
        complete: () => settle(true),
        error: () => settle(true),
      });
  });
}

// ── Properties ──────────────────────────────────────────────────────────────────────────────────

// PROPERTY_RUNS=2000 npx jest properties explores further (CI runs the default).
const runs = Number(process.env['PROPERTY_RUNS'] ?? 120);
const settings = { numRuns: runs } as const;

describe('the loop under random middleware stacks, scripts and cuts', () => {
  it(
    'keeps the grammar, tears every layer down once and leaves a valid, loadable state',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(turnArb, { minLength: 1, maxLength: 4 }),
          fc.array(layerArb, { maxLength: 4 }),
          cutArb,
          async (turns, layers, cut) => {
            const { events, completed, agent, ledger } = await run(turns, layers, cut);
            if (completed) assertReplyGrammar(events);
            expect(ledger.tornDown).toBe(ledger.subscribed);
            assertConsistentConversation(agent.context);
            const state = agent.saveState();
            const roundTripped = parseAgentState(JSON.parse(JSON.stringify(state)));
            expect(roundTripped).toEqual(state);
            const again = new Agent({ name: 'prop', model: new ScriptedChatModel([]), tools, state: roundTripped });
            expect(again.context).toEqual(agent.context);
          },
        ),
        settings,
      );
    },
    Math.max(20_000, runs * 15),
  );

  it(
    'gives the same events for the same script and stack',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(turnArb, { minLength: 1, maxLength: 4 }),
          fc.array(layerArb, { maxLength: 4 }),
          async (turns, layers) => {
            const first = await run(turns, layers, { kind: 'none' });
            const second = await run(turns, layers, { kind: 'none' });
            expect(second.events.map((e) => e.type)).toEqual(first.events.map((e) => e.type));
            expect(second.agent.context.map((m) => m.content.map((b) => b.type))).toEqual(
              first.agent.context.map((m) => m.content.map((b) => b.type)),
            );
          },
        ),
        { numRuns: Math.ceil(runs / 2) },
      );
    },
    Math.max(20_000, runs * 15),
  );
});

// ── Counterexamples fast-check found, shrunk, kept as plain tests ─────────────────────────────────

describe('regressions found by the properties', () => {
  it('a retry layer in onActing around a failing tool leaves the call exactly one result, also when interrupted', async () => {
    for (const cut of [{ kind: 'none' } as const, { kind: 'interrupt', afterEvents: 7 } as const]) {
      const { events, completed, agent } = await run(
        [{ kind: 'calls', names: ['boom'] }],
        [{ kind: 'retry', hook: 'onActing' }],
        cut,
      );
      expect(completed).toBe(true);
      assertReplyGrammar(events);
      const results = events.filter((e) => e.type === 'TOOL_RESULT_START');
      expect(results).toHaveLength(1);
      assertConsistentConversation(agent.context);
    }
  });

  it('an interrupt at REPLY_START under a retrying onModelCall layer starts no model call it does not end', async () => {
    const { events, completed } = await run(
      [{ kind: 'fail', retryable: false }],
      [{ kind: 'retry', hook: 'onModelCall' }],
      { kind: 'interrupt', afterEvents: 0 },
    );
    expect(completed).toBe(true);
    expect(assertReplyGrammar(events).finishReason).toBe('interrupted');
    const starts = events.filter((e) => e.type === 'MODEL_CALL_START').length;
    expect(events.filter((e) => e.type === 'MODEL_CALL_END')).toHaveLength(starts);
  });
});
