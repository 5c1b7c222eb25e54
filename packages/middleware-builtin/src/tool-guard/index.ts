/**
 * `ToolGuardMiddleware`: a static policy on tool calls, applied in `onActing` to every validated,
 * permitted call.
 *
 * - **Allow and deny lists** of tool names or globs (`'fs_*'`). Deny wins; with an allow list,
 *   only the tools it matches may run. A deny rule may also look at one argument
 *   (`{ tool: 'write_file', argument: 'path', pattern: '/etc/**' }`, same matching as permission
 *   rules), and carry a `reason`. A denied call is not executed: it is answered with a `denied`
 *   result whose text names the reason, and the reply goes on (the model sees the denial).
 * - **Argument rewrites** per tool name or glob (clamp a limit, confine a path): the rewritten
 *   arguments are validated against the tool's schema again and passed to `next`, so inner
 *   layers and the tool see them; a `CUSTOM tool_guard.rewrite` event records before/after.
 *   Deny rules on arguments are checked on the rewritten arguments (what would really run).
 *   A rewrite that throws or produces invalid arguments answers the call with an `error` result.
 * - By default (`hideDenied`), tools denied by name are also removed from what the model is
 *   offered, so it does not try them (a call it makes anyway is still denied).
 *
 * This is configuration, not persisted state: for rules a person can change at runtime (and
 * confirmations), use the agent's `permissions`.
 *
 * @example
 * ```ts
 * new ToolGuardMiddleware({
 *   deny: ['shell', { tool: 'write_file', argument: 'path', pattern: '**\/.env', reason: 'secrets stay untouched' }],
 *   rewrite: {
 *     search: clampArgument('limit', { max: 50 }),
 *     'fs_*': confinePath('path', '/workspace'),
 *   },
 * });
 * ```
 *
 * @module
 */
import { concat, from, type Observable, of } from 'rxjs';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  type Middleware,
  newId,
  type Next,
  type ReasoningInput,
  type RuntimeContext,
  type Tool,
  type ToolCallBlock,
  checkOptionKeys,
  optionKeys,
} from '@rxscope/core';
import { ruleMatches, validateToolInput } from '@rxscope/core/internal';

/** A deny rule: a tool name or glob, or one narrowed to calls whose `argument` matches `pattern`. */
export type ToolGuardRule =
  string | { readonly tool: string; readonly argument?: string; readonly pattern?: string; readonly reason?: string };

/** What a rewrite receives besides the arguments. */
export interface ToolCallInfo {
  readonly tool: Tool;
  readonly toolCall: ToolCallBlock;
  readonly ctx: RuntimeContext;
}

/**
 * Returns the arguments to run a call with (the same object when nothing changes). Receives
 * the validated arguments (or the previous rewrite's output).
 */
// `any`: a rewrite is written for a known tool, and is checked against its schema afterwards.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ToolInputRewrite = (input: any, info: ToolCallInfo) => unknown;

/** Options of {@link ToolGuardMiddleware}. */
export interface ToolGuardOptions {
  /** Tool names or globs that may run; absent: every tool not denied. */
  readonly allow?: readonly string[];
  /** Tools (names or globs), or calls of tools with an argument matching a glob, that may not run. */
  readonly deny?: readonly ToolGuardRule[];
  /** Argument rewrites per tool name or glob, applied in order (all matching entries). */
  readonly rewrite?: Readonly<Record<string, ToolInputRewrite | readonly ToolInputRewrite[]>>;
  /** Remove tools denied by name from what the model is offered. Default true. */
  readonly hideDenied?: boolean;
  /** State key. Default `'ToolGuardMiddleware'`. */
  readonly key?: string;
}

/**
 * A rewrite that clamps a numeric argument into `[min, max]` (other values pass unchanged).
 *
 * @example
 * ```ts
 * new ToolGuardMiddleware({ rewrite: { search: clampArgument('limit', { min: 1, max: 50 }) } });
 * ```
 */
export function clampArgument(
  argument: string,
  range: { readonly min?: number; readonly max?: number },
): ToolInputRewrite {
  return (input: unknown) => {
    const value = argOf(input, argument);
    if (typeof value !== 'number') return input;
    const clamped = Math.min(range.max ?? Infinity, Math.max(range.min ?? -Infinity, value));
    return clamped === value ? input : { ...(input as object), [argument]: clamped };
  };
}

/**
 * A rewrite that confines a path argument to `root`, like a chroot: `..` segments cannot climb
 * above it, and a path outside it is placed inside it (`/etc/passwd` → `/workspace/etc/passwd`).
 * Paths are POSIX-style; backslashes count as separators.
 *
 * @example
 * ```ts
 * new ToolGuardMiddleware({ rewrite: { 'fs_*': confinePath('path', '/workspace') } });
 * ```
 */
export function confinePath(argument: string, root: string): ToolInputRewrite {
  return (input: unknown) => {
    const value = argOf(input, argument);
    if (typeof value !== 'string') return input;
    const confined = confine(value, root);
    return confined === value ? input : { ...(input as object), [argument]: confined };
  };
}

// Every option, typed against ToolGuardOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<ToolGuardOptions>({
  allow: true,
  deny: true,
  rewrite: true,
  hideDenied: true,
  key: true,
});

/** Enforces allow/deny lists and rewrites arguments per tool. See the module documentation. */
export class ToolGuardMiddleware implements Middleware {
  readonly key: string;
  private readonly allow: readonly string[] | undefined;
  private readonly deny: readonly Exclude<ToolGuardRule, string>[];
  private readonly rewrites: readonly { readonly pattern: string; readonly fn: ToolInputRewrite }[];
  private readonly hideDenied: boolean;

  constructor(options: ToolGuardOptions = {}) {
    checkOptionKeys('ToolGuardMiddleware', options, OPTION_KEYS);
    this.key = options.key ?? 'ToolGuardMiddleware';
    this.allow = options.allow;
    this.deny = (options.deny ?? []).map((r) => (typeof r === 'string' ? { tool: r } : r));
    this.rewrites = Object.entries(options.rewrite ?? {}).flatMap(([pattern, fns]) =>
      (typeof fns === 'function' ? [fns] : fns).map((fn) => ({ pattern, fn })),
    );
    this.hideDenied = options.hideDenied ?? true;
  }

  /** Why a tool may not run at all (by its name), or `undefined` when it may. */
  deniedByName(toolName: string): string | undefined {
    const rule = this.deny.find((r) => r.argument === undefined && matches(r.tool, toolName));
    if (rule) return `"${toolName}" is on the deny list${rule.reason ? `: ${rule.reason}` : ` (rule "${rule.tool}")`}.`;
    if (this.allow && !this.allow.some((p) => matches(p, toolName))) {
      return `"${toolName}" is not on the allow list (${this.allow.join(', ')}).`;
    }
    return undefined;
  }

  onReasoning(
    _agent: AgentHandle,
    _ctx: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    if (!this.hideDenied) return next(input);
    const tools = input.tools.filter((t) => this.deniedByName(t.name) === undefined);
    if (tools.length === input.tools.length) return next(input);
    const choice = input.toolChoice;
    const forcedHidden = typeof choice === 'object' && !tools.some((t) => t.name === choice.name);
    return next({ ...input, tools, ...(forcedHidden ? { toolChoice: 'auto' as const } : {}) });
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    const name = input.tool.name;
    const byName = this.deniedByName(name);
    if (byName) return answer(ctx, input, 'denied', `Call denied by the tool guard: ${byName}`);

    let args = input.input;
    const info: ToolCallInfo = { tool: input.tool, toolCall: input.toolCall, ctx };
    for (const { pattern, fn } of this.rewrites) {
      if (!matches(pattern, name)) continue;
      try {
        args = fn(args, info);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        return answer(ctx, input, 'error', `The tool guard could not rewrite the arguments of "${name}": ${why}`);
      }
    }
    const rewritten = args !== input.input;
    if (rewritten) {
      const checked = validateToolInput(input.tool, args);
      if (!checked.ok)
        return answer(
          ctx,
          input,
          'error',
          `The tool guard rewrote the arguments into invalid ones. ${checked.message}`,
        );
      args = checked.input;
    }

    const rule = this.deny.find((r) => r.argument !== undefined && ruleMatches({ behavior: 'deny', ...r }, name, args));
    if (rule) {
      const why = rule.reason ?? `${rule.argument} matches "${rule.pattern ?? '*'}"`;
      return answer(ctx, input, 'denied', `Call denied by the tool guard: ${why}.`);
    }

    if (!rewritten) return next(input);
    const toolCall = { ...input.toolCall, arguments: JSON.stringify(args) };
    return concat(
      of(
        ctx.event('CUSTOM', {
          name: 'tool_guard.rewrite',
          value: { toolCallId: toolCall.id, tool: name, before: input.input, after: args },
        }),
      ),
      next({ ...input, toolCall, input: args }),
    );
  }
}

/** Answers the call without running it. */
function answer(
  ctx: RuntimeContext,
  input: ActingInput,
  status: 'denied' | 'error',
  text: string,
): Observable<AgentEvent> {
  const blockId = newId('blk');
  const toolCallId = input.toolCall.id;
  return from([
    ctx.event('TOOL_RESULT_START', { blockId, toolCallId, name: input.tool.name }),
    ctx.event('TOOL_RESULT_END', { blockId, toolCallId, status, output: [{ type: 'text', text }] }),
  ]);
}

function matches(pattern: string, name: string): boolean {
  return pattern === name || ruleMatches({ behavior: 'deny', tool: pattern }, name, undefined);
}

function argOf(input: unknown, argument: string): unknown {
  return typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[argument] : undefined;
}

function confine(path: string, root: string): string {
  const base = root.replace(/[/\\]+$/, '');
  let rest = path;
  if (base && (rest === base || rest.startsWith(`${base}/`) || rest.startsWith(`${base}\\`)))
    rest = rest.slice(base.length);
  const segments: string[] = [];
  for (const seg of rest.split(/[/\\]+/)) {
    if (!seg || seg === '.') continue;
    if (seg === '..') segments.pop();
    else segments.push(seg);
  }
  if (!segments.length) return base || '/';
  return `${base}/${segments.join('/')}`;
}
