import type { Agent } from '@rxscope/core';

interface Entry {
  readonly agent: Promise<Agent>;
  /** Replies of the context running now: a context in use never expires. */
  busy: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * The agents of the A2A contexts, made by a factory on a context's first message and dropped
 * after `idleMs` without one (a context's next message then starts with a new agent: from its
 * session store, if it has one), so contexts callers abandon do not pile up.
 */
export class ContextAgents {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly factory: (contextId: string) => Agent | Promise<Agent>,
    private readonly idleMs: number,
  ) {}

  /** The context's agent, held until `release()`. */
  acquire(contextId: string): Promise<Agent> {
    let entry = this.entries.get(contextId);
    if (!entry) {
      const agent = Promise.resolve().then(() => this.factory(contextId));
      entry = { agent, busy: 0, timer: undefined };
      const created = entry;
      agent.catch(() => {
        if (this.entries.get(contextId) === created) this.entries.delete(contextId);
      });
      this.entries.set(contextId, entry);
    }
    entry.busy++;
    clearTimeout(entry.timer);
    return entry.agent;
  }

  /** The reply of the context ended: its idle time starts when none runs. */
  release(contextId: string): void {
    const entry = this.entries.get(contextId);
    if (!entry) return;
    entry.busy = Math.max(0, entry.busy - 1);
    if (entry.busy > 0 || !Number.isFinite(this.idleMs)) return;
    entry.timer = setTimeout(() => {
      if (this.entries.get(contextId) === entry && entry.busy === 0) this.entries.delete(contextId);
    }, this.idleMs).unref();
  }

  /** How many contexts have an agent now. */
  get size(): number {
    return this.entries.size;
  }

  /** Every agent made so far (to cancel their replies on close). */
  agents(): Promise<Agent>[] {
    return [...this.entries.values()].map((e) => e.agent);
  }

  /** Stops every idle timer. */
  clear(): void {
    for (const entry of this.entries.values()) clearTimeout(entry.timer);
    this.entries.clear();
  }
}
