/**
 * Snapshot migrations: `MIGRATIONS[n]` turns a version-`n` snapshot into version `n + 1`. When
 * the format changes, bump `STATE_VERSION` and add one function here; `parseAgentState` applies
 * them in order before validating, so snapshots saved by older builds keep loading.
 */
const MIGRATIONS: Readonly<Record<number, (old: Record<string, unknown>) => Record<string, unknown>>> = {
  // v1 → v2: permission settings and the suspended reply joined the state.
  1: (old) => ({ ...old, version: 2, permissions: { mode: 'default', rules: [] } }),
  // v2 → v3: messages sent with send() (`inbox`) and a suspended reply's structured output joined the state.
  2: (old) => ({ ...old, version: 3 }),
};

/**
 * Applies the migrations from the snapshot's version up to the current one. Unknown shapes are
 * returned unchanged (validation reports them).
 *
 * @example
 * ```ts
 * const current = migrateState({ version: 1, agentName: 'a', sessionId: 's', context: [], middlewareState: {} });
 * ```
 */
export function migrateState(snapshot: { version: number }): unknown {
  let current = snapshot as Record<string, unknown> & { version: number };
  while (MIGRATIONS[current.version]) {
    current = MIGRATIONS[current.version]!(current) as Record<string, unknown> & { version: number };
  }
  return current;
}
