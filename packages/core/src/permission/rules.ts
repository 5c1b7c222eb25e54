import picomatch from 'picomatch';

/** What a rule (or the engine) decides for a tool call. */
export type PermissionBehavior = 'allow' | 'deny' | 'ask';

/**
 * How calls that no rule and no tool check decide are treated:
 * - `default`: allow, unless the tool or a rule asks;
 * - `strict`: every non-read-only call asks;
 * - `plan`: non-read-only calls are denied (nothing may change the world while planning);
 * - `bypass`: everything is allowed, except what a deny rule denies.
 */
export type PermissionMode = 'default' | 'strict' | 'plan' | 'bypass';

/**
 * A permission rule: a tool name (or glob such as `fs_*`), optionally narrowed to calls whose
 * named argument matches a glob (e.g. `{ tool: 'write_file', argument: 'path', pattern: 'src/**' }`).
 */
export interface PermissionRule {
  readonly behavior: PermissionBehavior;
  readonly tool: string;
  readonly argument?: string;
  readonly pattern?: string;
  /** Shown to the model (deny) or to the person asked (ask). */
  readonly reason?: string;
  /** Applies only to replies for this user (`reply(input, { userId })`); without it, to every reply. */
  readonly userId?: string;
}

/** The permission settings persisted in the agent state. */
export interface PermissionState {
  readonly mode: PermissionMode;
  readonly rules: readonly PermissionRule[];
}

const matchers = new Map<string, (value: string) => boolean>();
function glob(pattern: string): (value: string) => boolean {
  let m = matchers.get(pattern);
  if (!m) {
    m = picomatch(pattern, { dot: true, windows: false });
    matchers.set(pattern, m);
  }
  return m;
}

/**
 * True when `rule` applies to a call of `toolName` with `input`.
 *
 * @example
 * ```ts
 * ruleMatches({ behavior: 'allow', tool: 'write_file', argument: 'path', pattern: 'src/**' }, 'write_file', { path: 'src/a.ts' }); // true
 * ```
 */
export function ruleMatches(rule: PermissionRule, toolName: string, input: unknown, userId?: string): boolean {
  if (rule.userId !== undefined && rule.userId !== userId) return false;
  if (rule.tool !== toolName && !glob(rule.tool)(toolName)) return false;
  if (rule.argument === undefined) return true;
  const value =
    typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[rule.argument] : undefined;
  if (value === undefined || value === null) return false;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return rule.pattern === undefined || glob(rule.pattern)(text);
}

/**
 * A short human description of a rule, for reasons and logs.
 *
 * @example
 * ```ts
 * describeRule({ behavior: 'deny', tool: 'shell' }); // 'deny rule "shell"'
 * ```
 */
export function describeRule(rule: PermissionRule): string {
  const arg =
    rule.argument !== undefined
      ? ` with ${rule.argument}${rule.pattern !== undefined ? ` matching "${rule.pattern}"` : ''}`
      : '';
  const user = rule.userId !== undefined ? ` for user "${rule.userId}"` : '';
  return `${rule.behavior} rule "${rule.tool}"${arg}${user}`;
}
