import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { SharedState } from '../util/shared-state.js';
import type { Observable, ObservableInput } from 'rxjs';
import type { AgentEvent } from '../event/events.js';
import type { Msg, ToolResultContent } from '../message/blocks.js';
import type { ChatModel, ModelOptions, ToolSchema } from '../model/chat-model.js';
import type { ToolAnswer } from './tool-question.js';
import { SchemaError } from './schema-error.js';
import { assertStandardSchema, jsonSchemaOf, type SchemaOutput } from './standard-schema.js';
import { checkToolDefinition } from './check-tool-definition.js';

/**
 * What a tool's `execute` may produce, per emitted value: text, a JSON-serialisable value
 * (sent to the model as JSON), or content blocks (text and data).
 */
export type ToolOutput = string | number | boolean | null | ToolResultContent | readonly ToolResultContent[] | object;

/**
 * A model call a tool makes through its agent (`toolCtx.callModel`): the messages (a system
 * message first if wanted), the model (default: the agent's) and request options.
 *
 * @example
 * ```ts
 * const request: ToolModelRequest = { messages: [createMsg('user', 'Hi')], options: { maxTokens: 100 } };
 * ```
 */
export interface ToolModelRequest {
  readonly messages: readonly Msg[];
  readonly model?: ChatModel;
  readonly options?: ModelOptions;
}

/** What a running tool receives besides its input. */
export interface ToolContext {
  /** Aborted when the call is cancelled (unsubscribe, interrupt, timeout): stop work promptly. */
  readonly signal: AbortSignal;
  /** Id of the tool call being executed. */
  readonly callId: string;
  /** Name of the agent running the tool. */
  readonly agentName: string;
  readonly replyId: string;
  /** The user the reply acts for (`ctx.userId`), when it has one: scope what the tool reads and writes by it. */
  readonly userId?: string;
  /**
   * The person's answer to the question this call's previous run asked by throwing a
   * `ToolQuestion` (the reply suspended and was resumed with `USER_CONFIRM_RESULT`).
   */
  readonly answer?: ToolAnswer;
  /**
   * Calls a model through the running agent's `onModelCall` chain (so retries, fallbacks,
   * budgets, limits and tracing around model calls apply), without tools, for a tool that needs
   * a completion of its own (an MCP server's sampling request). Its events are returned, not
   * added to the reply. Present while the tool runs inside an agent's reply.
   *
   * @example
   * ```ts
   * const events = await lastValueFrom(toolCtx.callModel!({ messages: [createMsg('user', 'Summarise: ...')] }).pipe(toArray()));
   * ```
   */
  readonly callModel?: (request: ToolModelRequest) => Observable<AgentEvent>;
  /**
   * Reports progress as a `TOOL_PROGRESS` event: shown live, never part of the result (the values
   * the tool returns are the result, streamed as `TOOL_RESULT_DELTA`).
   *
   * @example
   * ```ts
   * toolCtx.emit('looking up Paris...');
   * toolCtx.emit({ message: 'page 2 of 5', progress: 2, total: 5 });
   * ```
   */
  readonly emit: (progress: string | ToolProgress) => void;
  /**
   * Passes an event of another agent (the reply of an agent this tool runs, see `agent.asTool()`)
   * through the running reply as it is, so consumers see the nested reply live. Events whose
   * `source` is the running agent's own name are refused (they would corrupt its reply): give
   * nested agents their own names. Ignored once the call has ended.
   */
  readonly forward: (event: AgentEvent) => void;
  /**
   * The same for every attempt of this call: a retry, a rerun after a crash, the `recover` of an
   * interrupted run. Pass it to the APIs the tool calls (a payment's `Idempotency-Key`) so that
   * a call run again does not take effect twice.
   */
  readonly idempotencyKey: string;
  /**
   * The session's shared state (`ctx.sharedState` of the reply): each change is emitted as
   * `STATE_SNAPSHOT`/`STATE_DELTA`, so a frontend shows what the tool is doing. Always set when
   * the agent runs the tool; absent from a context built by hand (a unit test, a detached run).
   *
   * @example
   * ```ts
   * toolCtx.sharedState?.patch([{ op: 'add', path: '/found/-', value: hit }]);
   * ```
   */
  readonly sharedState?: SharedState;
}

/** A progress report with numbers, for {@link ToolContext.emit}. */
export interface ToolProgress {
  readonly message: string;
  /** Work done so far, in units of `total`. */
  readonly progress?: number;
  readonly total?: number;
}

/** A permission verdict a tool can give for one call (see the permission engine). */
export type ToolPermissionDecision =
  | { readonly behavior: 'allow' }
  | { readonly behavior: 'deny'; readonly reason: string }
  | { readonly behavior: 'ask'; readonly reason?: string };

/** Definition passed to {@link defineTool}. */
export interface ToolDefinition<S extends StandardSchemaV1> {
  readonly name: string;
  readonly description: string;
  /**
   * Schema of the arguments, an object: any Standard Schema (zod 3.25+ and 4, valibot, arktype,
   * ...) or a plain JSON Schema through `jsonSchemaInput({...})`. The model gets its JSON Schema;
   * the arguments are validated with it before `execute` runs.
   */
  readonly input: S;
  /** Reads only: may run without confirmation in `strict` mode and in `plan` mode. Default false. */
  readonly readOnly?: boolean;
  /** May run in parallel with neighbouring concurrency-safe calls. Default: same as `readOnly`. */
  readonly concurrencySafe?: boolean;
  /** Executed outside the agent: the reply suspends with `REQUIRE_EXTERNAL_EXECUTION`. */
  readonly external?: boolean;
  /** Ask a person before running (or decide per input). */
  readonly needsApproval?: boolean | ((input: SchemaOutput<S>) => boolean | Promise<boolean>);
  /** Richer own permission check, consulted after the rules (see docs/human-in-the-loop.md). */
  readonly checkPermissions?: (input: SchemaOutput<S>) => ToolPermissionDecision | Promise<ToolPermissionDecision>;
  /**
   * Runs the tool: return a value, a Promise, an Observable or an (async) iterable. Every
   * emitted value is streamed as `TOOL_RESULT_DELTA`, and the values together form the result
   * (a returned string or array is one value; an object reaches the model as JSON and consumers
   * as `TOOL_RESULT_END.value`). A throw or error notification becomes an error result.
   */
  readonly execute?: (input: SchemaOutput<S>, ctx: ToolContext) => ObservableInput<ToolOutput> | ToolOutput;
  /**
   * Running it twice does no harm (it reads, or passes `toolCtx.idempotencyKey` to an API that
   * deduplicates): a call cut off by a crash after it started runs again when its reply is
   * recovered. Default false: such a call is never run again (see `recover`).
   */
  readonly idempotent?: boolean;
  /**
   * Asked, when a reply is recovered after a crash, for the outcome of a call that had started
   * and has no result (the tool is not `idempotent`, so it is not run again): look it up (by
   * `toolCtx.idempotencyKey`) and return the result as `execute` would. Without it the model
   * gets an `interrupted` result saying the outcome is unknown.
   */
  readonly recover?: (input: SchemaOutput<S>, ctx: ToolContext) => ObservableInput<ToolOutput> | ToolOutput;
}

/**
 * A registered tool (the output of {@link defineTool}). `Tool` without a type argument accepts
 * a tool of any input type (the input is validated at run time by `inputSchema`).
 */
// `any` (not `unknown`) as the default: tools with specific inputs must fit in `Tool[]` lists.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface Tool<I = any> {
  readonly name: string;
  readonly description: string;
  /** The schema the arguments are validated with (any Standard Schema). */
  readonly inputSchema: StandardSchemaV1<unknown, I>;
  /** JSON Schema of the arguments (computed once). */
  readonly schema: ToolSchema;
  readonly readOnly: boolean;
  readonly concurrencySafe: boolean;
  readonly external: boolean;
  readonly needsApproval?: boolean | ((input: I) => boolean | Promise<boolean>);
  readonly checkPermissions?: (input: I) => ToolPermissionDecision | Promise<ToolPermissionDecision>;
  readonly execute?: (input: I, ctx: ToolContext) => ObservableInput<ToolOutput> | ToolOutput;
  /** Safe to run again after a crash cut a run off (see {@link ToolDefinition.idempotent}). */
  readonly idempotent?: boolean;
  /** The outcome of a run a crash cut off (see {@link ToolDefinition.recover}). */
  readonly recover?: (input: I, ctx: ToolContext) => ObservableInput<ToolOutput> | ToolOutput;
}

/**
 * Defines a tool. Its `input` is any Standard Schema of an object (zod 3.25+ and 4, valibot,
 * arktype) or a plain JSON Schema through `jsonSchemaInput`; `execute` gets the validated
 * arguments, typed as the schema says. The JSON Schema sent to the model comes from the schema
 * library (zod 4's `toJSONSchema`, the Standard JSON Schema interface of zod 4.2+ and arktype,
 * valibot's `toStandardJsonSchema`); a schema that gives none is refused with a `SchemaError`
 * (`schema_no_json_schema`) that says how to give it with `jsonSchemaInput`.
 *
 * @example
 * ```ts
 * const add = defineTool({
 *   name: 'add',
 *   description: 'Adds two numbers',
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   readOnly: true,
 *   execute: ({ a, b }) => of(String(a + b)),
 * });
 *
 * // valibot (its JSON Schema through @valibot/to-json-schema), or arktype as it is
 * const greet = defineTool({
 *   name: 'greet',
 *   description: 'Greets someone',
 *   input: toStandardJsonSchema(v.object({ name: v.string() })),
 *   execute: ({ name }) => `Hello ${name}`,
 * });
 * ```
 */
export function defineTool<S extends StandardSchemaV1>(definition: ToolDefinition<S>): Tool<SchemaOutput<S>> {
  checkToolDefinition(definition);
  const parameters = argumentsSchema(definition.name, definition.input);
  const readOnly = definition.readOnly ?? false;
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: definition.input,
    schema: { name: definition.name, description: definition.description, parameters },
    readOnly,
    concurrencySafe: definition.concurrencySafe ?? readOnly,
    external: definition.external ?? false,
    ...(definition.needsApproval !== undefined ? { needsApproval: definition.needsApproval } : {}),
    ...(definition.checkPermissions ? { checkPermissions: definition.checkPermissions } : {}),
    ...(definition.execute ? { execute: definition.execute } : {}),
    ...(definition.idempotent ? { idempotent: true } : {}),
    ...(definition.recover ? { recover: definition.recover } : {}),
  };
}

/**
 * The JSON Schema of a tool's arguments. Models take only an object of named arguments, so the
 * schema must describe an object (an object with a refine or a default is one too).
 */
function argumentsSchema(name: string, input: unknown): Record<string, unknown> {
  assertStandardSchema(input, `Tool "${name}": input`);
  let schema = jsonSchemaOf(input, `Tool "${name}": its input schema`, 'input');
  // A hand-written JSON Schema often leaves out `type` beside `properties`: models need it.
  if (schema['type'] === undefined && typeof schema['properties'] === 'object') schema = { type: 'object', ...schema };
  if (schema['type'] !== 'object') {
    const kind = typeof schema['type'] === 'string' ? article(schema['type']) : 'not an object';
    throw new SchemaError(
      'schema_not_object',
      `Tool "${name}": input must describe an object (models take named arguments), but it is ${kind}; ` +
        'wrap it, e.g. z.object({ query: z.string() }).',
    );
  }
  return schema;
}

const article = (word: string) => `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
