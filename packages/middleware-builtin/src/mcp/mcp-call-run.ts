import {
  type ToolAnswer,
  type ToolContext,
  type ToolProgress,
  ToolQuestion,
  type ToolQuestionRequest,
} from '@rxscope/core';
import type { CallToolResult, CreateMessageResult, ElicitResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import type { McpConnection } from './connection.js';
import { answers, elicitationQuestion, elicitResultOf, type McpElicitation } from './elicitation.js';
import {
  answersSampling,
  declinedSampling,
  type McpSamplingRequest,
  refuseSampling,
  sampleWithAgent,
  samplingQuestion,
} from './sampling.js';

/**
 * A call stopped by an elicitation: its MCP request stays open (the server waits for the answer)
 * while the reply is suspended, so the resumed run answers the server and follows the same call.
 */
interface HeldCall {
  readonly controller: AbortController;
  result?: Promise<CallToolResult>;
  settled: boolean;
  /** Answers the request the server waits for (`undefined`: the call is over unanswered). */
  answer?: ((answer: ToolAnswer | undefined) => void) | undefined;
  /** Set by the run watching the call. */
  ctx?: ToolContext | undefined;
  progress?: ((p: Progress) => void) | undefined;
  raise?: ((question: ToolQuestionRequest) => void) | undefined;
}

/** Calls held across a suspension, per connection, by tool call id (this process only). */
const heldCalls = new WeakMap<McpConnection, Map<string, HeldCall>>();

const heldOf = (connection: McpConnection): Map<string, HeldCall> => {
  let map = heldCalls.get(connection);
  if (!map) heldCalls.set(connection, (map = new Map<string, HeldCall>()));
  return map;
};

/**
 * Runs one MCP tool call for a rxscope tool call. An elicitation from the server (or a sampling
 * request under `policy: 'ask'`) stops the run with a `ToolQuestion` (the reply suspends for the
 * person) while the MCP request stays open;
 * the run resumed with `toolCtx.answer` sends the answer and follows the same request. When
 * that request is gone (its connection closed, it timed out, the reply resumed in another
 * process), the call is made again and the answer given to the same question when the server
 * asks it again.
 *
 * @example
 * ```ts
 * const result = await runMcpCall(connection, 'trigger-elicitation-request', {}, toolCtx);
 * ```
 */
export function runMcpCall(
  connection: McpConnection,
  tool: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<CallToolResult> {
  const answer = ctx.answer;
  if (answer?.question.kind === 'mcp_elicitation' || answer?.question.kind === 'mcp_sampling') {
    const held = heldOf(connection).get(ctx.callId);
    heldOf(connection).delete(ctx.callId);
    if (held && !held.settled && held.answer) {
      const followed = watch(held, ctx);
      const send = held.answer;
      held.answer = undefined;
      send(answer);
      return followed;
    }
    return start(connection, tool, args, ctx, answer);
  }
  return start(connection, tool, args, ctx, undefined);
}

function start(
  connection: McpConnection,
  tool: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
  prepared: ToolAnswer | undefined,
): Promise<CallToolResult> {
  const held: HeldCall = { controller: new AbortController(), settled: false };
  let unused = prepared;
  /** The answer an earlier run got to this very request, used once. */
  const given = (matches: (a: ToolAnswer) => boolean): ToolAnswer | undefined => {
    if (!unused || !matches(unused)) return undefined;
    const a = unused;
    unused = undefined;
    return a;
  };
  /** Waits for a person: the run stops with the question, the request stays open. */
  const ask = (question: ToolQuestionRequest): Promise<ToolAnswer | undefined> =>
    new Promise((resolve) => {
      held.answer = resolve;
      heldOf(connection).set(ctx.callId, held);
      held.raise?.(question);
    });
  const onElicit = async (params: McpElicitation): Promise<ElicitResult> => {
    const answer =
      given((a) => answers(a, connection.name, params)) ?? (await ask(elicitationQuestion(connection.name, params)));
    return answer ? elicitResultOf(answer) : { action: 'cancel' };
  };
  const onSample = async (params: McpSamplingRequest): Promise<CreateMessageResult> => {
    const options = connection.sampling || {};
    refuseSampling(connection.name, options, params);
    if ((options.policy ?? 'ask') === 'ask') {
      const answer =
        given((a) => answersSampling(a, connection.name, params)) ??
        (await ask(samplingQuestion(connection.name, params)));
      if (!answer?.confirmed) throw declinedSampling(connection.name, answer);
    }
    return sampleWithAgent(held.ctx ?? ctx, params, options.model);
  };
  const result = connection.callTool(tool, args, {
    signal: held.controller.signal,
    onProgress: (p) => held.progress?.(p),
    onElicit,
    onSample,
  });
  held.result = result;
  const settle = () => {
    held.settled = true;
    // Over before the person answered (timeout, connection closed): free the server's request.
    held.answer?.(undefined);
    held.answer = undefined;
    if (heldOf(connection).get(ctx.callId) === held) heldOf(connection).delete(ctx.callId);
  };
  result.then(settle, settle);
  return watch(held, ctx);
}

/** Follows a held call for one run: its signal cancels it, its progress is reported, a question stops the run. */
function watch(held: HeldCall, ctx: ToolContext): Promise<CallToolResult> {
  return new Promise<CallToolResult>((resolve, reject) => {
    const onAbort = () => held.controller.abort(ctx.signal.reason);
    const detach = () => {
      ctx.signal.removeEventListener('abort', onAbort);
      held.progress = undefined;
      held.raise = undefined;
    };
    held.ctx = ctx;
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener('abort', onAbort, { once: true });
    held.progress = (p) => ctx.emit(formatProgress(p));
    // The run ends; the request does not: it waits, unlinked from this run's signal, for the answer.
    held.raise = (question) => {
      detach();
      reject(new ToolQuestion(question));
    };
    held.result!.then(
      (r) => {
        detach();
        resolve(r);
      },
      (e: unknown) => {
        detach();
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/**
 * A progress notification as the tool's progress report (a `TOOL_PROGRESS` event): the server's
 * message, or "progress 2/4" when it sent numbers only.
 *
 * @example
 * ```ts
 * formatProgress({ progress: 2, total: 4 }); // { message: 'progress 2/4', progress: 2, total: 4 }
 * ```
 */
export function formatProgress(p: Progress): ToolProgress {
  const amount = p.total !== undefined ? `${p.progress}/${p.total}` : String(p.progress);
  return {
    message: p.message ?? `progress ${amount}`,
    progress: p.progress,
    ...(p.total !== undefined ? { total: p.total } : {}),
  };
}
