import type { PermissionMode, PermissionRule, PermissionState } from './rules.js';

const MODES: readonly PermissionMode[] = ['default', 'strict', 'plan', 'bypass'];

/**
 * An agent's permission settings, changeable at runtime and persisted in its state
 * (`agent.permissions`). Changes apply from the next decision on.
 *
 * @example
 * ```ts
 * agent.permissions.setMode('strict');
 * agent.permissions.addRule({ behavior: 'allow', tool: 'read_*' });
 * agent.permissions.addRule({ behavior: 'deny', tool: 'write_file', argument: 'path', pattern: '/etc/**', reason: 'System files are off limits.' });
 * ```
 */
export class Permissions {
  private current: PermissionState;

  constructor(initial: Partial<PermissionState> = {}) {
    this.current = { mode: initial.mode ?? 'default', rules: [...(initial.rules ?? [])] };
    assertMode(this.current.mode);
  }

  get mode(): PermissionMode {
    return this.current.mode;
  }

  get rules(): readonly PermissionRule[] {
    return this.current.rules;
  }

  /** The settings as persisted (an immutable snapshot). */
  get state(): PermissionState {
    return this.current;
  }

  setMode(mode: PermissionMode): void {
    assertMode(mode);
    this.current = { ...this.current, mode };
  }

  /** Adds a rule (an identical rule is not added twice). */
  addRule(rule: PermissionRule): void {
    if (this.current.rules.some((r) => sameRule(r, rule))) return;
    this.current = { ...this.current, rules: [...this.current.rules, rule] };
  }

  /** Removes rules equal to `rule`; returns how many were removed. */
  removeRule(rule: PermissionRule): number {
    const kept = this.current.rules.filter((r) => !sameRule(r, rule));
    const removed = this.current.rules.length - kept.length;
    this.current = { ...this.current, rules: kept };
    return removed;
  }

  /** Replaces all settings (used when state is restored). */
  replace(state: PermissionState): void {
    assertMode(state.mode);
    this.current = { mode: state.mode, rules: [...state.rules] };
  }
}

function sameRule(a: PermissionRule, b: PermissionRule): boolean {
  return (
    a.behavior === b.behavior &&
    a.tool === b.tool &&
    a.argument === b.argument &&
    a.pattern === b.pattern &&
    a.userId === b.userId
  );
}

function assertMode(mode: string): asserts mode is PermissionMode {
  if (!MODES.includes(mode as PermissionMode)) {
    throw new TypeError(`Unknown permission mode "${mode}"; use one of ${MODES.join(', ')}.`);
  }
}
