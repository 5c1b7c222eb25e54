import type { Tool, ToolPermissionDecision } from '../tool/tool.js';
import { describeRule, ruleMatches, type PermissionRule, type PermissionState } from './rules.js';

/**
 * The engine's verdict for one call, with the reason and what decided it.
 *
 * @example
 * ```ts
 * const d: PermissionDecision = { behavior: 'allow', reason: 'tenant acme auto-approves', decidedBy: 'middleware' };
 * ```
 */
export interface PermissionDecision {
  readonly behavior: 'allow' | 'deny' | 'ask';
  readonly reason: string;
  /** Which stage decided: `rule`, `read-only`, `mode`, `tool`, or an `onCheckPermission` layer (`middleware`). */
  readonly decidedBy: 'rule' | 'read-only' | 'mode' | 'tool' | 'middleware';
}

const first = (
  rules: readonly PermissionRule[],
  behavior: PermissionRule['behavior'],
  tool: Tool,
  input: unknown,
  userId: string | undefined,
) => rules.find((r) => r.behavior === behavior && ruleMatches(r, tool.name, input, userId));

/**
 * Decides allow / deny / ask for one validated tool call, in this order:
 * deny rules → ask rules → read-only fast path → `plan` mode (denies the rest) → the tool's own
 * check (`checkPermissions`, else `needsApproval`) → allow rules → the mode's default.
 * `bypass` allows everything a deny rule does not deny. A tool's own "ask" can be overridden by
 * an allow rule (that is what "always allow" adds); its "deny" and "allow" are final. Rules with
 * a `userId` count only for that user's replies (`userId`: the reply's user).
 *
 * @example
 * ```ts
 * const d = await decidePermission(writeFile, { path: '/etc/passwd' }, { mode: 'default', rules: [{ behavior: 'deny', tool: 'write_file', argument: 'path', pattern: '/etc/**' }] });
 * // { behavior: 'deny', reason: 'Denied by deny rule "write_file" with path matching "/etc/**"', decidedBy: 'rule' }
 * ```
 */
export function decidePermission(
  tool: Tool,
  input: unknown,
  state: PermissionState,
  userId?: string,
): PermissionDecision | Promise<PermissionDecision> {
  const deny = first(state.rules, 'deny', tool, input, userId);
  if (deny) return { behavior: 'deny', reason: deny.reason ?? `Denied by ${describeRule(deny)}.`, decidedBy: 'rule' };
  if (state.mode === 'bypass') return { behavior: 'allow', reason: 'bypass mode', decidedBy: 'mode' };
  const ask = first(state.rules, 'ask', tool, input, userId);
  if (ask)
    return {
      behavior: 'ask',
      reason: ask.reason ?? `Confirmation required by ${describeRule(ask)}.`,
      decidedBy: 'rule',
    };
  if (tool.readOnly) return { behavior: 'allow', reason: 'read-only tool', decidedBy: 'read-only' };
  if (state.mode === 'plan') {
    return {
      behavior: 'deny',
      reason: `Plan mode: "${tool.name}" may change things and is not allowed while planning. Finish the plan first.`,
      decidedBy: 'mode',
    };
  }
  // The tool's own check may be asynchronous; everything else stays synchronous.
  if (tool.checkPermissions)
    return then(tool.checkPermissions(input), (own) => afterToolCheck(tool, input, state, own, userId));
  if (typeof tool.needsApproval === 'function') {
    return then(tool.needsApproval(input), (needs) =>
      afterToolCheck(tool, input, state, needs ? { behavior: 'ask' } : undefined, userId),
    );
  }
  return afterToolCheck(tool, input, state, tool.needsApproval ? { behavior: 'ask' } : undefined, userId);
}

function afterToolCheck(
  tool: Tool,
  input: unknown,
  state: PermissionState,
  own: ToolPermissionDecision | undefined,
  userId: string | undefined,
): PermissionDecision {
  if (own?.behavior === 'deny') return { behavior: 'deny', reason: own.reason, decidedBy: 'tool' };
  if (own?.behavior === 'allow') return { behavior: 'allow', reason: `allowed by ${tool.name}`, decidedBy: 'tool' };
  const allow = first(state.rules, 'allow', tool, input, userId);
  if (allow) return { behavior: 'allow', reason: `Allowed by ${describeRule(allow)}.`, decidedBy: 'rule' };
  if (own?.behavior === 'ask') {
    return {
      behavior: 'ask',
      reason: own.reason ?? `"${tool.name}" needs approval before it runs.`,
      decidedBy: 'tool',
    };
  }
  if (state.mode === 'strict')
    return { behavior: 'ask', reason: `Strict mode: "${tool.name}" is not read-only.`, decidedBy: 'mode' };
  return { behavior: 'allow', reason: 'default mode', decidedBy: 'mode' };
}

function then<T, R>(value: T | Promise<T>, f: (v: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(f) : f(value);
}
