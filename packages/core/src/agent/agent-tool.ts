import { Observable } from 'rxjs';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { z } from 'zod';
import type { AgentEvent, ReplyEndEvent } from '../event/events.js';
import type { Msg } from '../message/blocks.js';
import { createReplyReducer } from '../event/reducer.js';
import { defineTool, type Tool, type ToolContext, type ToolOutput } from '../tool/tool.js';
import type { ReplyInput } from './agent-options.js';
import { Relay } from './operator-relay.js';
import { checkOptionKeys, optionKeys } from '../error/check-option-keys.js';
import { finalTextOf, type ReplyOptions } from './structured-output.js';

const DEFAULT_INPUT = z.object({ message: z.string().describe('The task or question for the agent, self-contained.') });

/** The default arguments of an agent used as a tool: `{message: string}`. */
export type DefaultAgentToolInput = typeof DEFAULT_INPUT;

/** Options of `agent.asTool()`. */
export interface AgentToolOptions<S extends StandardSchemaV1 = DefaultAgentToolInput> {
  /** Tool name the calling model sees. Default: the agent's name (when it is a valid tool name). */
  readonly name?: string;
  /** What the agent is good at: the calling model decides from this when to use it. */
  readonly description: string;
  /** Arguments of the tool (any schema `defineTool` takes as `input`). Default `{message: string}`. */
  readonly input?: S;
  /**
   * Turns the arguments into the agent's input. Default: the `message` argument when the input
   * is the default one, else the arguments as JSON text.
   */
  readonly prompt?: (input: StandardSchemaV1.InferOutput<S>) => string | Msg;
  /** Ask the agent for structured output (see `reply(input, {output})`): the tool result is the value as JSON. */
  readonly output?: StandardSchemaV1;
}

// Every option, typed against AgentToolOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<AgentToolOptions>({
  name: true,
  description: true,
  input: true,
  prompt: true,
  output: true,
});

/**
 * An agent as a tool of another agent (`agent.asTool()`): each call runs one reply of the agent
 * and its events stream through the caller's reply unchanged (their `source` is the agent's
 * name, their `replyId` its own reply). The final text of the reply (its `output` as JSON, with
 * the `output` option) is the tool result; a reply
 * that fails, is interrupted or waits for a person gives an `error` result saying so. Cancelling
 * the call (the caller unsubscribed or was interrupted, a timeout) cancels the reply.
 *
 * The agent keeps its conversation between calls, as it does between `reply()` calls, and runs
 * one reply at a time: calls from several callers at once queue, in order.
 *
 * @example
 * ```ts
 * const researcher = new Agent({ name: 'researcher', model, tools: [webSearch] });
 * const lead = new Agent({
 *   name: 'lead', model,
 *   tools: [researcher.asTool({ description: 'Researches a question on the web and reports what it found.' })],
 * });
 * ```
 */
export function agentAsTool<S extends StandardSchemaV1 = typeof DEFAULT_INPUT>(
  agent: AgentToolTarget,
  options: AgentToolOptions<S>,
): Tool<StandardSchemaV1.InferOutput<S>> {
  checkOptionKeys('asTool', options, OPTION_KEYS);
  const name = options.name ?? agent.name;
  const schema = (options.input ?? DEFAULT_INPUT) as S;
  const prompt =
    options.prompt ??
    ((input: StandardSchemaV1.InferOutput<S>): string =>
      options.input === undefined ? (input as z.output<typeof DEFAULT_INPUT>).message : JSON.stringify(input));
  return defineTool({
    name,
    description: options.description,
    input: schema,
    execute: (input, toolCtx) => runNested(agent, prompt(input), toolCtx, options.output),
  });
}

/**
 * What running an agent as a tool needs of it: an `Agent` is one.
 *
 * @example
 * ```ts
 * const target: AgentToolTarget = new Agent({ name: 'researcher', model });
 * const tool = agentAsTool(target, { description: 'Researches a question.' });
 * ```
 */
export interface AgentToolTarget {
  readonly name: string;
  reply(input: ReplyInput, options?: ReplyOptions): Observable<AgentEvent>;
}

/** One reply of `agent`, its events forwarded through the calling reply, resolving to the result. */
function runNested(
  agent: AgentToolTarget,
  input: string | Msg,
  toolCtx: ToolContext,
  output: StandardSchemaV1 | undefined,
): Observable<ToolOutput> {
  return new Observable<ToolOutput>((subscriber) => {
    if (toolCtx.agentName === agent.name) {
      // Also the case of an agent calling itself, which would wait for its own reply forever.
      throw new Error(
        `Agent "${agent.name}" cannot run as a tool of an agent with the same name; give the agents distinct names.`,
      );
    }
    const reducer = createReplyReducer({ source: agent.name });
    let replyId: string | undefined;
    let end: ReplyEndEvent | undefined;
    new Relay<AgentEvent, ToolOutput>(subscriber, {
      next: (e) => {
        if (e.source === agent.name && (replyId === undefined || e.replyId === replyId)) {
          if (e.type === 'REPLY_START') replyId = e.replyId;
          else if (e.type === 'REPLY_END') end = e;
          reducer.apply(e);
        }
        toolCtx.forward(e);
      },
      complete: (down) => {
        if (!end) return down.error(new Error(`agent "${agent.name}" ended without REPLY_END`));
        const outcome = resultOf(agent.name, end, reducer.message());
        if (outcome instanceof Error) return down.error(outcome);
        down.next(outcome);
        down.complete();
      },
    }).subscribeTo(
      // The nested reply acts for the caller's user: its memory, limits and audit are theirs.
      agent.reply(input, {
        ...(output ? { output } : {}),
        ...(toolCtx.userId !== undefined ? { userId: toolCtx.userId } : {}),
      }),
    );
  });
}

/** The tool result of a nested reply: its final answer, or an error that says why there is none. */
function resultOf(name: string, end: ReplyEndEvent, message: Msg): ToolOutput | Error {
  switch (end.finishReason) {
    case 'completed':
    case 'max_iters':
      if ('output' in end) return JSON.stringify(end.output);
      return finalTextOf(message);
    case 'stopped':
      return finalTextOf(message);
    case 'error':
      return new Error(`agent "${name}" failed: ${end.error?.message ?? 'unknown error'}`);
    case 'interrupted':
      return new Error(`agent "${name}" was interrupted before it answered`);
    case 'shutdown':
      return new Error(`agent "${name}" was shut down before it answered (its reply is saved on that agent)`);
    case 'awaiting_confirmation':
    case 'awaiting_external_execution':
      return new Error(
        `agent "${name}" stopped to wait for ${end.finishReason === 'awaiting_confirmation' ? 'a confirmation' : 'an external tool result'}` +
          ' (reply ' +
          end.replyId +
          '), which cannot be given through a tool call; answer it on that agent directly',
      );
    default:
      return finalTextOf(message);
  }
}
