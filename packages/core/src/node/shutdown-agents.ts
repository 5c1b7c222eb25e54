import type { Agent } from '../agent/agent.js';
import type { AgentShutdownResult } from '../agent/agent-shutdown.js';

/** The agents to shut down: a list, or a function called when the shutdown starts (agents created until then included). */
export type AgentsToShutDown = Iterable<Agent> | (() => Iterable<Agent>);

/**
 * Options of {@link shutdownAgents}.
 *
 * @example
 * ```ts
 * const options: ShutdownAgentsOptions = { signal: terminationSignal(), graceMs: 10_000 };
 * ```
 */
export interface ShutdownAgentsOptions {
  /**
   * The shutdown starts when this signal aborts (at once when it already has); its `reason`
   * (a string or an Error's message) becomes the reason. Default: start now.
   */
  readonly signal?: AbortSignal;
  /** How long running replies may take to reach a safe point before they are cut off. Default 10,000 ms. */
  readonly graceMs?: number;
  /** Why, when the signal gives none. Default `'the service is shutting down'`. */
  readonly reason?: string;
}

/**
 * What {@link shutdownAgents} did: one entry per agent, and the sessions whose reply was saved
 * mid-way (`finishReason: 'shutdown'`), to continue after the restart with
 * `agent.reply({type: 'RESUME_REPLY'})`.
 *
 * @example
 * ```ts
 * const report: ShutdownReport = await shutdownAgents(agents);
 * await writeFile('resume.json', JSON.stringify(report.suspended));
 * ```
 */
export interface ShutdownReport {
  readonly reason: string;
  readonly agents: readonly AgentShutdownResult[];
  /** Session ids of the replies saved for a resume. */
  readonly suspended: readonly string[];
}

/**
 * Gracefully shuts down a service's agents (all at once): each refuses new work from then on
 * (`AgentShutdownError`, HTTP 503), and its running reply stops at its next safe point — the
 * running model call and tool calls may finish within `graceMs`, nothing new starts — and is
 * saved to the agent's session store with `REPLY_END {finishReason: 'shutdown'}`, so a new
 * process continues it with `agent.reply({type: 'RESUME_REPLY'})`. A tool call still running
 * when the grace period ends is aborted and answered `interrupted` (not re-run on resume, as it
 * may have had effects). Resolves once every reply ended and every state is saved; then exit.
 * See `Agent.shutdown()` for one agent.
 *
 * @example
 * ```ts
 * import { shutdownAgents, terminationSignal } from '@rxscope/core/node';
 * const agents = new Set<Agent>(); // the live agents of the service
 * void shutdownAgents(() => agents, { signal: terminationSignal(), graceMs: 10_000 }).then((report) => {
 *   console.log(`saved ${report.suspended.length} replies for the next process`);
 *   process.exit(0);
 * });
 * ```
 */
export async function shutdownAgents(
  agents: AgentsToShutDown,
  options: ShutdownAgentsOptions = {},
): Promise<ShutdownReport> {
  const signal = options.signal;
  if (signal && !signal.aborted)
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  const reason =
    (signal?.aborted ? reasonOf(signal.reason) : undefined) ?? options.reason ?? 'the service is shutting down';
  const list = [...new Set(typeof agents === 'function' ? agents() : agents)];
  const results = await Promise.all(
    list.map((agent) => agent.shutdown({ reason, graceMs: options.graceMs ?? 10_000 })),
  );
  return {
    reason,
    agents: results,
    suspended: results.filter((r) => r.finishReason === 'shutdown').map((r) => r.sessionId),
  };
}

/**
 * An `AbortSignal` that aborts on the first of the given process signals (default `SIGTERM` and
 * `SIGINT`), with the reason `'received SIGTERM'` (…). Its listeners are removed then, so a second
 * signal gets Node's default behaviour (the process exits at once): a stuck shutdown can still be
 * stopped with a second Ctrl-C. While it waits, the process no longer exits on those signals by
 * itself: pass it to {@link shutdownAgents} and exit when that resolves.
 *
 * @example
 * ```ts
 * const report = await shutdownAgents(() => agents, { signal: terminationSignal() });
 * process.exit(0);
 * ```
 */
export function terminationSignal(signals: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): AbortSignal {
  const controller = new AbortController();
  const handlers = signals.map((name) => {
    const handler = () => {
      for (const [n, h] of handlers) process.removeListener(n, h);
      controller.abort(`received ${name}`);
    };
    process.on(name, handler);
    return [name, handler] as const;
  });
  return controller.signal;
}

function reasonOf(reason: unknown): string | undefined {
  if (typeof reason === 'string' && reason) return reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return undefined;
}
