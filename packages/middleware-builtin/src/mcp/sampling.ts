import { lastValueFrom, toArray } from 'rxjs';
import {
  type ChatModel,
  checkOptionKeys,
  type ContentBlock as RxContentBlock,
  createMsg,
  type Msg,
  optionKeys,
  OptionsError,
  type ToolAnswer,
  type ToolContext,
  type ToolQuestionRequest,
} from '@rxscope/core';
import {
  type CreateMessageRequest,
  type CreateMessageResult,
  ErrorCode,
  McpError,
  type SamplingMessage,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * The parameters of a server's `sampling/createMessage` request.
 *
 * @example
 * ```ts
 * const request: McpSamplingRequest = { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 100 };
 * ```
 */
export type McpSamplingRequest = CreateMessageRequest['params'];

/**
 * How a server's sampling requests (`sampling/createMessage`) are answered (the `sampling`
 * option of `McpMiddleware.connect`).
 *
 * @example
 * ```ts
 * const sampling: McpSamplingOptions = { policy: 'allow', maxTokens: 2_000, model: cheapModel };
 * ```
 */
export interface McpSamplingOptions {
  /**
   * `'ask'` (default): the reply suspends with `REQUIRE_USER_CONFIRM` (a question of kind
   * `mcp_sampling`) and the model runs once a person confirms; `'allow'`: the model runs at once;
   * `'deny'`: every request is refused.
   */
  readonly policy?: 'ask' | 'allow' | 'deny';
  /** The model that answers. Default: the model of the agent running the tool call. */
  readonly model?: ChatModel;
  /** The most tokens a request may ask for (its `maxTokens`); a larger one is declined with the reason. */
  readonly maxTokens?: number;
}

const SAMPLING_KEYS = optionKeys<McpSamplingOptions>({ policy: true, model: true, maxTokens: true });
const POLICIES = ['ask', 'allow', 'deny'] as const;

/**
 * Checks the `sampling` option: unknown keys (with "did you mean"), the policy and the cap.
 *
 * @example
 * ```ts
 * checkSamplingOptions({ policy: 'allow' }); // ok
 * checkSamplingOptions({ polcy: 'allow' });  // OptionsError: unknown option "polcy" (did you mean "policy"?)
 * ```
 */
export function checkSamplingOptions(options: McpSamplingOptions | false | undefined): void {
  if (options === undefined || options === false) return;
  checkOptionKeys('McpMiddleware.connect.sampling', options, SAMPLING_KEYS);
  if (options.policy !== undefined && !POLICIES.includes(options.policy)) {
    throw new OptionsError(
      'invalid_option',
      'McpMiddleware.connect.sampling.policy',
      `sampling.policy must be 'ask', 'allow' or 'deny', got ${JSON.stringify(options.policy)}.`,
    );
  }
  if (options.maxTokens !== undefined && !(Number.isInteger(options.maxTokens) && options.maxTokens > 0)) {
    throw new OptionsError(
      'invalid_option',
      'McpMiddleware.connect.sampling.maxTokens',
      `sampling.maxTokens must be a positive integer, got ${JSON.stringify(options.maxTokens)}.`,
    );
  }
}

/**
 * Refuses a request the options do not let through (over the token cap, or `policy: 'deny'`):
 * the server receives an error saying why.
 */
export function refuseSampling(server: string, options: McpSamplingOptions, params: McpSamplingRequest): void {
  if (options.maxTokens !== undefined && params.maxTokens > options.maxTokens) {
    throw new McpError(
      ErrorCode.InvalidRequest,
      `Sampling declined by the client: the request asks for up to ${params.maxTokens} tokens, over the cap of ${options.maxTokens} set for server "${server}".`,
    );
  }
  if (options.policy === 'deny') {
    throw new McpError(
      ErrorCode.InvalidRequest,
      `Sampling declined by the client: its policy for server "${server}" is 'deny'.`,
    );
  }
}

/**
 * A sampling request as the question asked of a person under `policy: 'ask'` (kind
 * `mcp_sampling`): the message quotes the last message, `details` carry the whole request.
 *
 * @example
 * ```ts
 * samplingQuestion('everything', { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 100 }).message;
 * // 'MCP server "everything" asks to use the model (up to 100 tokens): "Hi"'
 * ```
 */
export function samplingQuestion(server: string, params: McpSamplingRequest): ToolQuestionRequest {
  const last = params.messages[params.messages.length - 1];
  const quoted = last ? textOf(last).slice(0, 200) : '';
  return {
    message: `MCP server "${server}" asks to use the model (up to ${params.maxTokens} tokens): "${quoted}"`,
    kind: 'mcp_sampling',
    details: {
      server,
      messages: params.messages,
      maxTokens: params.maxTokens,
      ...(params.systemPrompt !== undefined ? { systemPrompt: params.systemPrompt } : {}),
    },
  };
}

/** True when an answer given to an earlier run's sampling question answers this request too (same server and messages). */
export function answersSampling(answer: ToolAnswer, server: string, params: McpSamplingRequest): boolean {
  const details = answer.question.details;
  return (
    answer.question.kind === 'mcp_sampling' &&
    details?.['server'] === server &&
    JSON.stringify(details['messages']) === JSON.stringify(params.messages)
  );
}

/** The server hears that the person declined (or dismissed) its sampling request. */
export function declinedSampling(server: string, answer: ToolAnswer | undefined): McpError {
  const why = answer?.reason ? `: ${answer.reason}` : '';
  return new McpError(ErrorCode.InvalidRequest, `Sampling request of server "${server}" declined by the user${why}.`);
}

/**
 * Answers a sampling request with a model call through the agent's `onModelCall` chain
 * (`toolCtx.callModel`): the server's system prompt and messages, its `maxTokens`, temperature
 * and stop sequences; the text of the answer goes back with the model's name.
 *
 * @example
 * ```ts
 * const result = await sampleWithAgent(toolCtx, params, undefined); // { role: 'assistant', content: { type: 'text', text }, model, stopReason }
 * ```
 */
export async function sampleWithAgent(
  ctx: ToolContext,
  params: McpSamplingRequest,
  model: ChatModel | undefined,
): Promise<CreateMessageResult> {
  if (!ctx.callModel) throw new McpError(ErrorCode.InternalError, 'Sampling is not available outside an agent reply.');
  const messages: Msg[] = [
    ...(params.systemPrompt ? [createMsg('system', params.systemPrompt)] : []),
    ...params.messages.map((m) => createMsg(m.role, blocksOf(m))),
  ];
  const options = {
    maxTokens: params.maxTokens,
    ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
    ...(params.stopSequences ? { stop: params.stopSequences } : {}),
  };
  const events = await lastValueFrom(
    ctx.callModel({ messages, options, ...(model ? { model } : {}) }).pipe(toArray()),
    {
      defaultValue: [],
    },
  );
  let text = '';
  let used = model?.modelName ?? 'unknown';
  let stopReason: string = 'endTurn';
  for (const e of events) {
    if (e.type === 'TEXT_BLOCK_DELTA') text += e.delta;
    if (e.type === 'MODEL_CALL_END') {
      used = e.model;
      stopReason = e.finishReason === 'length' ? 'maxTokens' : e.finishReason === 'stop' ? 'endTurn' : e.finishReason;
    }
  }
  return { role: 'assistant', content: { type: 'text', text }, model: used, stopReason };
}

function contentsOf(m: SamplingMessage): readonly Record<string, unknown>[] {
  const content = m.content as unknown;
  return (Array.isArray(content) ? content : [content]) as Record<string, unknown>[];
}

function textOf(m: SamplingMessage): string {
  return contentsOf(m)
    .map((c) => (c['type'] === 'text' ? String(c['text']) : `[${String(c['type'])}]`))
    .join(' ');
}

function blocksOf(m: SamplingMessage): RxContentBlock[] {
  return contentsOf(m).map((c): RxContentBlock => {
    if (c['type'] === 'text') return { type: 'text', text: String(c['text']) };
    if ((c['type'] === 'image' || c['type'] === 'audio') && typeof c['data'] === 'string') {
      return { type: 'data', mediaType: String(c['mimeType']), data: c['data'] };
    }
    return { type: 'text', text: JSON.stringify(c) };
  });
}
