/**
 * `ToolCallLimitMiddleware`: at most `perReply` tool calls in one reply and `perSession` in the
 * agent's session, and optionally limits per tool (`perTool`, keyed by tool name or glob). A
 * tool call counts when it is executed: calls answered before `onActing` (unknown tool, invalid
 * arguments, denied by a permission rule) and calls this middleware refuses do not count.
 * Session counts live in `ctx.state(key)` (saved by `saveState()` and session stores); reply
 * counts survive a suspension for confirmation.
 *
 * A call over a limit is not executed: it is answered with a `denied` result that names the
 * limit (`TOOL_RESULT_START`/`TOOL_RESULT_END`), followed by a
 * `CUSTOM {name: 'tool_call_limit', value: {action: 'deny', ...}}` event. Then, per `onLimit`:
 * - `'finish'` (default): steer the model to finish. Once the global limit is used up, every
 *   further reasoning step of the reply gets `toolChoice: 'none'` and a hint (a `HINT_BLOCK`) to
 *   answer now; once a per-tool limit is used up, the tools it covers are removed from what the
 *   model is offered, with a hint saying so. The model is steered as soon as the limit is
 *   reached, before it tries a call that would be refused.
 * - `'end'`: the model is not told; when it makes a call over a limit, that call is answered
 *   `denied` and the reply ends on purpose before the next model call:
 *   `REPLY_END {finishReason: 'stopped', stopReason: {code: 'tool_call_limit', message}}`
 *   (`agent.call()` resolves).
 *
 * @example
 * ```ts
 * new ToolCallLimitMiddleware({
 *   perReply: 20,                          // any tools, per reply
 *   perTool: { web_search: { perReply: 3 }, 'fs_write*': { perSession: 50 } },
 * });
 * ```
 *
 * @module
 */
import { concat, defer, EMPTY, from, type Observable } from 'rxjs';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  type Middleware,
  newId,
  type Next,
  type ReasoningInput,
  type RuntimeContext,
  checkOptionKeys,
  optionKeys,
  OptionsError,
} from '@rxscope/core';
import { ruleMatches } from '@rxscope/core/internal';
import { checkLimit } from '../internal/check-limit.js';
import { ScopedState } from '../internal/scoped-state.js';
import type { LimitScope } from '../limit-exceeded-error.js';

/** A limit that was reached: its scope, the tool pattern it covers (none for the global limit), its size and use. */
export interface ToolCallLimitStatus {
  readonly scope: LimitScope;
  /** The `perTool` key (tool name or glob); absent for the global limit. */
  readonly tool?: string;
  readonly limit: number;
  readonly used: number;
}

/** Limits of one tool (or glob) in {@link ToolCallLimitOptions.perTool}. */
export interface ToolLimits {
  readonly perReply?: number;
  readonly perSession?: number;
}

/** Options of {@link ToolCallLimitMiddleware}. At least one limit is required. */
export interface ToolCallLimitOptions {
  /** Tool calls (of any tool) allowed in one reply. Default: no limit. */
  readonly perReply?: number;
  /** Tool calls (of any tool) allowed in the session. Default: no limit. */
  readonly perSession?: number;
  /** Limits per tool name or glob (`'web_*'`); calls of all tools a glob matches count together. */
  readonly perTool?: Readonly<Record<string, ToolLimits>>;
  /** `'finish'`: steer the model to answer (default); `'end'`: end the reply with a `tool_call_limit` error. */
  readonly onLimit?: 'end' | 'finish';
  /** Text of the `denied` result of a call over a limit. Default: names the limit. */
  readonly deniedText?: (status: ToolCallLimitStatus, toolName: string) => string;
  /** State key of the counts. Default `'ToolCallLimitMiddleware'`. */
  readonly key?: string;
}

interface ToolLimitEntry {
  readonly pattern: string;
  readonly perReply: number;
  readonly perSession: number;
}

interface Counts {
  readonly calls: number;
  readonly perTool: Readonly<Record<string, number>>;
}

interface ReplyCounts extends Counts {
  /** The first limit a call ran into in this reply. */
  readonly exceeded?: ToolCallLimitStatus;
}

const describe = (s: ToolCallLimitStatus) => {
  const calls = s.limit === 1 ? 'call' : 'calls';
  return `${s.limit} ${s.tool !== undefined ? `${calls} of "${s.tool}"` : `tool ${calls}`} per ${s.scope}`;
};

const defaultDeniedText = (s: ToolCallLimitStatus) =>
  `Tool call limit reached: at most ${describe(s)} (${s.used} made). This call was not executed; do not repeat it.`;

// Every option, typed against ToolCallLimitOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<ToolCallLimitOptions>({
  perReply: true,
  perSession: true,
  perTool: true,
  onLimit: true,
  deniedText: true,
  key: true,
});

/** Limits the tool calls of a reply and of a session, globally and per tool. See the module documentation. */
export class ToolCallLimitMiddleware implements Middleware {
  readonly key: string;
  private readonly perReply: number;
  private readonly perSession: number;
  private readonly perTool: readonly ToolLimitEntry[];
  private readonly onLimit: 'end' | 'finish';
  private readonly deniedText: (status: ToolCallLimitStatus, toolName: string) => string;
  private readonly state: ScopedState<ReplyCounts, Counts>;

  constructor(options: ToolCallLimitOptions) {
    checkOptionKeys('ToolCallLimitMiddleware', options, OPTION_KEYS);
    const owner = 'ToolCallLimitMiddleware';
    this.perReply = checkLimit(owner, 'perReply', options.perReply);
    this.perSession = checkLimit(owner, 'perSession', options.perSession);
    this.perTool = Object.entries(options.perTool ?? {}).map(([pattern, limits]) => ({
      pattern,
      perReply: checkLimit(owner, `perTool["${pattern}"].perReply`, limits.perReply),
      perSession: checkLimit(owner, `perTool["${pattern}"].perSession`, limits.perSession),
    }));
    const limited = [this.perReply, this.perSession, ...this.perTool.flatMap((t) => [t.perReply, t.perSession])];
    if (limited.every((n) => n === Infinity))
      throw new OptionsError(
        'invalid_option',
        'ToolCallLimitMiddleware.perReply',
        `${owner}: set at least one limit (perReply, perSession or perTool).`,
      );
    this.onLimit = options.onLimit ?? 'finish';
    this.deniedText = options.deniedText ?? defaultDeniedText;
    this.key = options.key ?? owner;
    this.state = new ScopedState<ReplyCounts, Counts>(
      this.key,
      () => ({ calls: 0, perTool: {} }),
      () => ({ calls: 0, perTool: {} }),
    );
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    const name = input.tool.name;
    const reply = this.state.reply(ctx);
    const session = this.state.session(ctx);
    const patterns = this.perTool.filter((t) => matches(t.pattern, name));
    const reached = [
      ...this.globalReached(reply, session),
      ...patterns.flatMap((t) => this.toolReached(reply, session, t)),
    ];
    if (reached.length) {
      const status = reached[0]!;
      if (!reply.exceeded) this.state.setReply(ctx, { ...reply, exceeded: status });
      const blockId = newId('blk');
      const call = input.toolCall;
      return from([
        ctx.event('TOOL_RESULT_START', { blockId, toolCallId: call.id, name }),
        ctx.event('TOOL_RESULT_END', {
          blockId,
          toolCallId: call.id,
          status: 'denied',
          output: [{ type: 'text', text: this.deniedText(status, name) }],
        }),
        ctx.event('CUSTOM', {
          name: 'tool_call_limit',
          value: { action: 'deny', toolCallId: call.id, toolName: name, ...status },
        }),
      ]);
    }
    const count = (c: Counts): Counts => {
      const perTool = { ...c.perTool };
      for (const t of patterns) perTool[t.pattern] = (perTool[t.pattern] ?? 0) + 1;
      return { calls: c.calls + 1, perTool };
    };
    this.state.setReply(ctx, { ...reply, ...count(reply) });
    this.state.setSession(ctx, count(session));
    return next(input);
  }

  onReasoning(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    const reply = this.state.reply(ctx);
    if (this.onLimit === 'end') {
      const status = reply.exceeded;
      if (!status) return next(input);
      const message = `Tool call limit reached: at most ${describe(status)}; the model asked for more.`;
      return concat(
        from([ctx.event('CUSTOM', { name: 'tool_call_limit', value: { action: 'end', ...status } })]),
        defer(() => {
          ctx.stop({ code: 'tool_call_limit', message });
          return EMPTY;
        }),
      );
    }

    const session = this.state.session(ctx);
    const global = this.globalReached(reply, session)[0];
    const wanted: { id: string; text: string }[] = [];
    const reached: ToolCallLimitStatus[] = [];
    let steered = input;
    if (global) {
      reached.push(global);
      steered = { ...input, toolChoice: 'none' };
      wanted.push({
        id: 'all',
        text: `The limit of ${describe(global)} is reached. Do not call tools any more: answer now with what you have, and say briefly what is left undone, if anything.`,
      });
    } else {
      const used = this.perTool.flatMap((t) => this.toolReached(reply, session, t).slice(0, 1));
      if (used.length) {
        const patterns = new Set(used.map((s) => s.tool!));
        steered = { ...input, tools: input.tools.filter((tool) => ![...patterns].some((p) => matches(p, tool.name))) };
        for (const s of used) {
          reached.push(s);
          wanted.push({
            id: `tool:${s.tool!}`,
            text: `The limit of ${describe(s)} is reached; ${s.tool!} is no longer available. Continue without it.`,
          });
        }
        if (steered.toolChoice !== 'auto' && steered.toolChoice !== 'none' && steered.toolChoice !== 'required') {
          const forced = steered.toolChoice.name;
          if (!steered.tools.some((t) => t.name === forced)) steered = { ...steered, toolChoice: 'auto' };
        }
      }
    }
    if (!wanted.length) return next(input);
    const ids = wanted.map((w) => `${this.key}:${w.id}`);
    // Reported once per reply for each limit, even when an outer layer re-enters the step.
    const fresh = reached.filter((_s, i) => !ctx.conversation.hasHint(ids[i]!));
    const head = fresh.length
      ? [ctx.event('CUSTOM', { name: 'tool_call_limit', value: { action: 'finish', limits: fresh } })]
      : [];
    return concat(
      from(head),
      defer(() => {
        wanted.forEach((w, i) => ctx.conversation.addHint(w.text, { id: ids[i]!, source: this.key }));
        return next(steered);
      }),
    );
  }

  /** Global limits a further call would exceed. */
  private globalReached(reply: Counts, session: Counts): ToolCallLimitStatus[] {
    const out: ToolCallLimitStatus[] = [];
    if (reply.calls >= this.perReply) out.push({ scope: 'reply', limit: this.perReply, used: reply.calls });
    if (session.calls >= this.perSession) out.push({ scope: 'session', limit: this.perSession, used: session.calls });
    return out;
  }

  /** Limits of one `perTool` entry a further call would exceed. */
  private toolReached(reply: Counts, session: Counts, t: ToolLimitEntry): ToolCallLimitStatus[] {
    const out: ToolCallLimitStatus[] = [];
    const r = reply.perTool[t.pattern] ?? 0;
    const s = session.perTool[t.pattern] ?? 0;
    if (r >= t.perReply) out.push({ scope: 'reply', tool: t.pattern, limit: t.perReply, used: r });
    if (s >= t.perSession) out.push({ scope: 'session', tool: t.pattern, limit: t.perSession, used: s });
    return out;
  }
}

/** True when `name` is `pattern` or matches it as a glob (the permission rules' matcher). */
function matches(pattern: string, name: string): boolean {
  return pattern === name || ruleMatches({ behavior: 'deny', tool: pattern }, name, undefined);
}
