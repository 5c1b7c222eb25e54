import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { JsonObject } from '../util/json-patch.js';
import { z } from 'zod';
import type { Msg } from '../message/blocks.js';
import type { ResponseFormat } from '../model/chat-model.js';
import { defineTool, type Tool } from '../tool/tool.js';
import { AgentUsageError } from './errors.js';
import { RxscopeError } from '../error/rxscope-error.js';
import { assertStandardSchema, jsonSchemaOf, validateWithSchema } from '../tool/standard-schema.js';

/** Name of the tool a model without native structured output answers through. */
export const OUTPUT_TOOL_NAME = 'final_output';

/** Options of a reply (`agent.reply(input, options)`, `agent.call(input, options)`). */
export interface ReplyOptions<S extends StandardSchemaV1 = StandardSchemaV1> {
  /**
   * A schema the final answer must match: any Standard Schema (zod 3.25+ and 4, valibot,
   * arktype) whose library gives its JSON Schema, or a plain JSON Schema through
   * `jsonSchemaInput`. The reply's `REPLY_END` carries the parsed value
   * as `output`, and `call()` resolves with it. The model is asked for it natively
   * (`response_format: json_schema`) when it supports that, else through a `final_output` tool.
   */
  readonly output?: S;
  /** Repair turns allowed when the answer does not match `output`. Default 2. */
  readonly outputRepairs?: number;
  /**
   * Tools offered for this reply only, beside the agent's own: typically tools a client declares
   * per request and runs itself (`external: true`, like AG-UI frontend tools, see
   * `externalTool`). Their names must differ from the agent's tools. A reply suspended for
   * them and resumed gets the tools passed to the resume call (pass them again).
   */
  readonly tools?: readonly Tool[];
  /**
   * The user this reply acts for (`ctx.userId`): a non-empty string, else the call throws an
   * `InvalidUserIdError` at once. The session's first reply with a `userId` makes that user its
   * owner (saved with the state); a reply or resume for another user is refused with a
   * `SessionForbiddenError` (HTTP 403). Memory, audit, usage and tracing middlewares scope and
   * label their data with it.
   */
  readonly userId?: string;
  /**
   * The shared state the reply starts from (a frontend's copy, sent with its request), or a
   * function of the session's current one, evaluated when the reply starts. The reply then
   * begins with a `STATE_SNAPSHOT` (right after `REPLY_START`), also when nothing changed.
   */
  readonly sharedState?: JsonObject | ((current: JsonObject) => JsonObject);
}

/**
 * Thrown into the loop (and so reported as `REPLY_END {finishReason: 'error', error: {code:
 * 'output_invalid'}}`) when the answer still fails the output schema after the repair turns.
 */
export class OutputInvalidError extends RxscopeError {
  override readonly name = 'OutputInvalidError';
  readonly code = 'output_invalid';
}

type Verdict = { readonly ok: true } | { readonly ok: false; readonly hint: string };

/**
 * The structured output of one reply: what the model is asked (a `response_format`, or the
 * `final_output` tool), how an answer is checked, and the repair turns. The loop asks it after a
 * reasoning step that called no tool ({@link checkAnswer}) and after an acting step
 * ({@link afterActing}); once it holds a value the reply ends with it.
 */
export class StructuredOutput {
  /** The parsed value, once an answer matched the schema. */
  value: unknown;
  accepted = false;
  /** The `response_format` sent with every model call (native mode). */
  readonly responseFormat: ResponseFormat | undefined;
  /** The `final_output` tool offered to the model (tool mode). */
  readonly tool: Tool | undefined;
  /** The JSON schema of `output`: what a suspended reply stores, to recognise the schema on resume. */
  readonly jsonSchema: Record<string, unknown>;
  private readonly schema: StandardSchemaV1;
  private readonly wrapped: boolean;

  constructor(
    output: StandardSchemaV1,
    native: boolean,
    private readonly maxRepairs: number,
    /** Repair turns already used (a resumed reply continues its count). */
    private repairs = 0,
  ) {
    assertStandardSchema(output, 'The `output` option of a reply');
    if (!Number.isInteger(maxRepairs) || maxRepairs < 0) {
      throw new AgentUsageError(`outputRepairs must be a non-negative integer, got ${maxRepairs}.`);
    }
    const json = jsonSchemaOf(output, 'The `output` schema of a reply', 'input');
    this.jsonSchema = json;
    // Providers want an object at the root: anything else travels as {value: ...}.
    this.wrapped = json['type'] !== 'object';
    this.schema = !this.wrapped
      ? output
      : output instanceof z.ZodType
        ? z.object({ value: output })
        : inValue(output, json);
    const root = this.wrapped ? jsonSchemaOf(this.schema, 'The `output` schema of a reply', 'input') : json;
    if (native) {
      const strict = strictSchema(root);
      this.responseFormat = {
        type: 'json_schema',
        name: 'final_output',
        schema: strict ?? root,
        strict: strict !== undefined,
      };
      this.tool = undefined;
    } else {
      this.responseFormat = undefined;
      this.tool = defineTool({
        name: OUTPUT_TOOL_NAME,
        description: 'Give your final answer with this tool, once, when you are done: its arguments are the answer.',
        input: this.schema,
        readOnly: true,
        execute: (value) => {
          this.accept(value);
          return 'Final answer recorded.';
        },
      });
    }
  }

  /**
   * After a reasoning step that called no tool: its final text must be JSON matching the schema
   * (in tool mode too, leniently: a model that wrote the JSON as text is not asked again).
   * Throws {@link OutputInvalidError} when no repair turn is left.
   */
  checkAnswer(message: Msg, final: boolean): Verdict {
    const text = finalTextOf(message).trim();
    const parsed = parseJson(text);
    const problem = parsed.ok === false ? parsed.error : this.validate(parsed.value);
    if (problem === undefined) return { ok: true };
    const hint = this.tool
      ? `Your answer was not given through the ${OUTPUT_TOOL_NAME} tool` +
        (text ? ` and is not a valid answer (${problem})` : '') +
        `. Call ${OUTPUT_TOOL_NAME} now with your final answer as its arguments.`
      : `Your answer does not match the required JSON schema: ${problem}. ` +
        'Answer again with only the corrected JSON value.';
    return this.repair(hint, final);
  }

  /**
   * After an acting step: true when the `final_output` tool accepted a value (the reply ends).
   * A call of the tool that was refused (its arguments failed the schema: the error result
   * names the fields) used one repair turn. Throws {@link OutputInvalidError} when none is left.
   */
  afterActing(calledTool: boolean): boolean {
    if (this.accepted) return true;
    if (calledTool) this.repair('', false);
    return false;
  }

  /**
   * Continues the structured output of a suspended reply: the schema must be the one the reply
   * was started with (compared by JSON schema: a schema cannot be stored), and the repair
   * turns already used count. Throws an {@link AgentUsageError} that says what to pass.
   */
  resume(
    stored: { readonly schema: Readonly<Record<string, unknown>>; readonly repairs: number },
    replyId: string,
  ): void {
    if (JSON.stringify(stored.schema) !== JSON.stringify(this.jsonSchema)) {
      throw new AgentUsageError(
        `Cannot resume reply ${replyId} with this output schema: the reply was started with a different one ` +
          `(JSON schema ${JSON.stringify(stored.schema).slice(0, 200)}). Pass the same schema as {output}.`,
      );
    }
    this.repairs = stored.repairs;
  }

  /** What a suspended reply keeps of its structured output. */
  persisted(): { readonly schema: Record<string, unknown>; readonly repairs: number } {
    return { schema: this.jsonSchema, repairs: this.repairs };
  }

  private validate(value: unknown): string | undefined {
    let result = validateWithSchema(this.schema, value);
    // A wrapped schema's answer is {value: ...}; a bare value written as text is taken as well.
    if (!result.ok && this.wrapped) {
      const bare = validateWithSchema(this.schema, { value });
      if (bare.ok) result = bare;
    }
    if (!result.ok) return prettyIssues(result.issues).replace(/\n/g, ' ');
    this.accept(result.value);
    return undefined;
  }

  private accept(value: unknown): void {
    this.accepted = true;
    this.value = this.wrapped ? (value as { value: unknown }).value : value;
  }

  private repair(hint: string, final: boolean): Verdict {
    if (final || this.repairs >= this.maxRepairs) {
      throw new OutputInvalidError(
        `the answer does not match the output schema after ${this.repairs} repair turn${this.repairs === 1 ? '' : 's'}` +
          (hint ? `: ${hint}` : ''),
      );
    }
    this.repairs++;
    return { ok: false, hint };
  }
}

/**
 * The text the reply ended with: its text blocks after the last tool call, tool result or hint
 * (all of its text when there is none).
 */
export function finalTextOf(message: Msg): string {
  const blocks = message.content;
  let start = 0;
  for (let i = blocks.length - 1; i >= 0; i--) {
    const type = blocks[i]!.type;
    if (type === 'tool_call' || type === 'tool_result' || type === 'hint') {
      start = i + 1;
      break;
    }
  }
  let text = '';
  for (let i = start; i < blocks.length; i++) {
    const b = blocks[i]!;
    if (b.type === 'text') text += b.text;
  }
  return text;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (!text) return { ok: false, error: 'the answer is empty' };
  // Models sometimes fence JSON in a markdown code block even when asked not to.
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(text);
  try {
    return { ok: true, value: JSON.parse(fenced ? fenced[1]! : text) as unknown };
  } catch (e) {
    return { ok: false, error: `it is not valid JSON (${(e as Error).message})` };
  }
}

/**
 * The issues of a failed answer as zod's `prettifyError` writes them (the model reads the same
 * text whichever library the schema comes from): one `✖ message` per issue, `→ at path` below.
 */
function prettyIssues(issues: readonly StandardSchemaV1.Issue[]): string {
  return [...issues]
    .sort((a, b) => (a.path?.length ?? 0) - (b.path?.length ?? 0))
    .map((issue) => `✖ ${issue.message}` + (issue.path?.length ? `\n  → at ${z.core.toDotPath(issue.path)}` : ''))
    .join('\n');
}

/** A non-object answer schema as the object `{value: ...}` providers want at the root. */
function inValue(inner: StandardSchemaV1, json: Record<string, unknown>): StandardSchemaV1 {
  const root = () => ({
    type: 'object',
    properties: { value: json },
    required: ['value'],
    additionalProperties: false,
  });
  return {
    '~standard': {
      version: 1,
      vendor: inner['~standard'].vendor,
      validate: (answer: unknown) => {
        if (typeof answer !== 'object' || answer === null || !('value' in answer)) {
          return { issues: [{ message: 'expected an object {"value": ...}' }] };
        }
        const verdict = validateWithSchema(inner, answer.value);
        if (verdict.ok) return { value: { value: verdict.value } };
        return { issues: verdict.issues.map((i) => ({ ...i, path: ['value', ...(i.path ?? [])] })) };
      },
      jsonSchema: { input: root, output: root },
    } as StandardSchemaV1.Props,
  };
}

/**
 * The schema in the form strict structured output accepts (every object closed, every property
 * required), or undefined when it has optional properties (then sent non-strict; the answer is
 * validated here either way).
 */
function strictSchema(schema: Record<string, unknown>): Record<string, unknown> | undefined {
  let strict = true;
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (typeof node !== 'object' || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = visit(v);
    if (out['type'] === 'object' && typeof out['properties'] === 'object' && out['properties'] !== null) {
      const keys = Object.keys(out['properties']);
      const required = Array.isArray(out['required']) ? (out['required'] as string[]) : [];
      if (keys.some((k) => !required.includes(k))) strict = false;
      if (out['additionalProperties'] === undefined) out['additionalProperties'] = false;
    }
    return out;
  };
  const result = visit(schema) as Record<string, unknown>;
  return strict ? result : undefined;
}

/** The structured output of one reply; refuses an agent tool that takes the output tool's name (when the model has no response format). */
export function structuredOutputOf(
  agentName: string,
  model: { readonly supportsResponseFormat?: boolean },
  tools: ReadonlyMap<string, unknown>,
  options: ReplyOptions,
): StructuredOutput {
  if (tools.has(OUTPUT_TOOL_NAME) && !model.supportsResponseFormat) {
    throw new AgentUsageError(
      `Agent "${agentName}" has a tool named "${OUTPUT_TOOL_NAME}", the name structured output uses; rename that tool.`,
    );
  }
  return new StructuredOutput(options.output!, model.supportsResponseFormat === true, options.outputRepairs ?? 2);
}
