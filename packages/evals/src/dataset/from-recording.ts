import type { AgentEvent, AgentStateSnapshot, Msg } from '@rxscope/core';
import { isList } from '../is-list.js';
import type { Cassette } from '@rxscope/middleware-builtin/recording';
import { EvalError } from '../eval-error.js';
import { replySample } from '../scorers/reply-sample.js';
import type { EvalCase, ExpectedToolCall } from './eval-case.js';

const textOf = (content: readonly unknown[]): string =>
  content
    .map((p) =>
      p && typeof p === 'object' && (p as { type?: unknown }).type === 'text'
        ? String((p as { text?: unknown }).text)
        : '',
    )
    .join('');

/**
 * One case per reply of a recording (a cassette of `RecordingMiddleware`): the input is the user
 * message the reply answered, `expected` holds what the recorded reply did (its final answer and
 * its tool calls with their arguments), and the case carries a cassette of that reply alone, to
 * replay it with `ReplayChatModel`. Turns a production reply into a regression case.
 *
 * @example
 * ```ts
 * const cases = casesFromCassette(await loadCassette('fixtures/refund.json'), { name: 'refund' });
 * const run = runEval({ dataset: cases, agent: (c) => new Agent({ model: new ReplayChatModel(c.cassette!), tools }), scorers: [trajectory({ mode: 'exact' })] });
 * ```
 */
export function casesFromCassette(cassette: Cassette, options: { readonly name: string }): EvalCase[] {
  if (!cassette || !isList(cassette.replies) || !isList(cassette.modelCalls)) {
    throw new EvalError(
      'dataset_invalid',
      `${options.name}: not a cassette (expected {version, modelCalls, replies}).`,
    );
  }
  let next = 0;
  return cassette.replies.map((reply, i) => {
    const events = reply.events as unknown as AgentEvent[];
    const calls = events.filter((e) => e.type === 'MODEL_CALL_START' && e.source === reply.agent).length;
    const modelCalls = cassette.modelCalls.slice(next, next + calls);
    next += calls;
    const users = modelCalls[0]?.request.messages.filter((m) => m.role === 'user') ?? [];
    const input = users.length ? textOf(users.at(-1)!.content) : '';
    if (!input) {
      throw new EvalError(
        'dataset_invalid',
        `${options.name}: reply #${i + 1} has no recorded user message to ask again.`,
      );
    }
    const sample = replySample(events);
    return {
      id: cassette.replies.length > 1 ? `${options.name}#${i + 1}` : options.name,
      input,
      expected: {
        answer: sample.answer,
        tools: sample.toolCalls.map((c): ExpectedToolCall => ({
          name: c.name,
          ...(c.input && typeof c.input === 'object' && !Array.isArray(c.input)
            ? { input: c.input as Record<string, unknown> }
            : {}),
        })),
      },
      metadata: { source: 'cassette', agent: reply.agent, finishReason: sample.end?.finishReason },
      cassette: { version: cassette.version, modelCalls, replies: [reply] },
    };
  });
}

/**
 * A case from a saved session (`agent.saveState()`, or a session store's state): the user message
 * of turn `turn` (default: the last one) is the input, and what the assistant answered after it
 * (its last text and its tool calls) is expected.
 *
 * @example
 * ```ts
 * const stored = await store.load('session-42');
 * const regression = caseFromSession(stored!.state, { id: 'refund-complaint' });
 * ```
 */
export function caseFromSession(
  snapshot: AgentStateSnapshot,
  options: { readonly id: string; readonly turn?: number },
): EvalCase {
  const context: readonly Msg[] = snapshot?.context ?? [];
  const turns = context.flatMap((m, i) => (m.role === 'user' && textOf(m.content) !== '' ? [i] : []));
  const turn = options.turn ?? turns.length;
  const at = turns[turn - 1];
  if (at === undefined) {
    throw new EvalError(
      'dataset_invalid',
      `${options.id}: the session has ${turns.length} user turn(s); turn ${turn} does not exist (turns count from 1).`,
    );
  }
  const after = context.slice(at + 1, turns[turn] ?? context.length).filter((m) => m.role === 'assistant');
  const tools: ExpectedToolCall[] = [];
  let answer = '';
  for (const m of after) {
    for (const block of m.content) {
      if (block.type === 'tool_call') {
        let input: unknown;
        try {
          input = JSON.parse(block.arguments);
        } catch {
          input = undefined;
        }
        tools.push({
          name: block.name,
          ...(input && typeof input === 'object' ? { input: input as Record<string, unknown> } : {}),
        });
      }
    }
    const text = textOf(m.content);
    if (text) answer = text;
  }
  return {
    id: options.id,
    input: textOf(context[at]!.content),
    expected: { answer, tools },
    metadata: { source: 'session', sessionId: snapshot.sessionId, agent: snapshot.agentName, turn },
  };
}
