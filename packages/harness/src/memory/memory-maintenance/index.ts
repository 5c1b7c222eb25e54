/**
 * `MemoryMaintenanceMiddleware`: now and then (at most once per `intervalMs`, default a day,
 * per workspace), after a completed reply, the model consolidates the daily ledgers that are
 * older than `keepDays` into `MEMORY.md` (merged by topic, duplicates folded, newer facts
 * winning). The consolidated ledgers are then moved to `memory/archive/` and the previous
 * `MEMORY.md` is kept there as `MEMORY-<time>.md`: nothing is deleted. When the model fails, or
 * answers with an empty or too long file, nothing changes.
 *
 * It runs **detached**: the reply's stream completes without waiting for it; one workspace (so
 * one session) never runs two at once: in this process, and with a `lease` (a `RedisLease`) in
 * every process sharing it (lease key `maintenance:<workspace root>`; a run that finds it held
 * elsewhere is skipped, that run covers it). The last run's time is kept in `memory/.maintenance.json`
 * so the throttle holds across processes and restarts. Outcomes go to the session's event log
 * when a `bus` is given — `CUSTOM memory_consolidated {ledgers, archived, chars}` or `CUSTOM
 * memory_maintenance_failed {error}` — and failures are logged (`onError`).
 *
 * @example
 * ```ts
 * const maintenance = new MemoryMaintenanceMiddleware({ fileSystem, intervalMs: 6 * 3600_000, bus: sessions.bus });
 * const agent = new Agent({ model, middlewares: [new MemoryFlushMiddleware({ fileSystem }), maintenance] });
 * ```
 *
 * @module
 */
import { defer, type Observable, tap } from 'rxjs';
import type { AgentHandle, AgentEvent, AgentInput, ChatModel, Middleware, Next, RuntimeContext } from '@rxscope/core';
import { consolidate } from '../consolidate.js';
import { DetachedWork, type DetachedReport } from '../detached-work.js';
import { dayOf, editSerially, ledgerDayOf, listLedgers, MEMORY_ARCHIVE, readText } from '../ledger.js';
import { WORKSPACE_LAYOUT, type WorkspaceFileSystem } from '../../workspace/index.js';
import { optionKeys } from '@rxscope/core';
import { HarnessOptionError, refuseUnknownOptions } from '../../options/index.js';

/** Options of {@link MemoryMaintenanceMiddleware}. */
export interface MemoryMaintenanceOptions extends DetachedReport {
  readonly fileSystem: WorkspaceFileSystem;
  /** The model that consolidates. Default: the agent's model. */
  readonly model?: ChatModel;
  /** At most one run per this interval. Default 86,400,000 ms (a day). */
  readonly intervalMs?: number;
  /** Ledgers of the last `keepDays` days (today included) stay as they are. Default 1 (today's). */
  readonly keepDays?: number;
  /** Longest `MEMORY.md` accepted from the model. Default 8,000 characters. */
  readonly maxChars?: number;
  /** A run's model call is aborted after this long. Default 300,000 ms. */
  readonly timeoutMs?: number;
  /** The clock. Default: `new Date()`. */
  readonly now?: () => Date;
}

/** The file holding the time of the last maintenance run. */
export const MAINTENANCE_FILE = `${WORKSPACE_LAYOUT.memoryDir}/.maintenance.json`;

// Every option, typed against MemoryMaintenanceOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<MemoryMaintenanceOptions>({
  fileSystem: true,
  model: true,
  intervalMs: true,
  keepDays: true,
  maxChars: true,
  timeoutMs: true,
  now: true,
  bus: true,
  onError: true,
  lease: true,
});

/** See the module documentation. */
export class MemoryMaintenanceMiddleware implements Middleware {
  readonly key = 'MemoryMaintenanceMiddleware';
  private readonly work: DetachedWork;
  private readonly intervalMs: number;
  private readonly keepDays: number;
  private readonly maxChars: number;
  private readonly now: () => Date;

  constructor(private readonly options: MemoryMaintenanceOptions) {
    refuseUnknownOptions('MemoryMaintenanceMiddleware', options, OPTION_KEYS);
    if (!options?.fileSystem)
      throw new HarnessOptionError(
        'invalid_option',
        'MemoryMaintenanceMiddleware.fileSystem',
        'MemoryMaintenanceMiddleware needs the workspace (options.fileSystem).',
      );
    for (const k of ['intervalMs', 'keepDays', 'maxChars', 'timeoutMs'] as const) {
      const v = options[k];
      if (v !== undefined && (typeof v !== 'number' || !(v >= 0)))
        throw new HarnessOptionError(
          'invalid_option',
          'MemoryMaintenanceMiddleware',
          `MemoryMaintenanceMiddleware: ${k} must be a number >= 0, got ${String(v)}.`,
        );
    }
    this.work = new DetachedWork('memory maintenance', options);
    this.intervalMs = options.intervalMs ?? 86_400_000;
    this.keepDays = Math.max(1, options.keepDays ?? 1);
    this.maxChars = options.maxChars ?? 8000;
    this.now = options.now ?? (() => new Date());
  }

  /** Resolves when no run is in progress. */
  idle(): Promise<void> {
    return this.work.idle();
  }

  onAgent(agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return defer(() =>
      next(input).pipe(
        tap((e) => {
          if (
            e.type !== 'REPLY_END' ||
            e.replyId !== ctx.replyId ||
            e.source !== agent.name ||
            e.finishReason !== 'completed'
          )
            return;
          const key = this.options.fileSystem.root;
          if (this.work.busy(key)) return; // one run at a time; the running one covers this reply
          void this.work.start(
            key,
            { sessionId: ctx.sessionId, replyId: ctx.replyId, agentName: agent.name },
            (emit, signal) => this.maintain(this.options.model ?? agent.model, emit, signal),
            'memory_maintenance_failed',
            // A run in another process covers this reply too.
            { key: `maintenance:${key}`, waitMs: 0, skipWhenBusy: true },
          );
        }),
      ),
    );
  }

  /** Consolidates when the interval has passed and there are ledgers old enough. */
  private async maintain(
    model: ChatModel,
    emit: (name: string, value: unknown) => Promise<void>,
    signal: AbortSignal,
  ): Promise<void> {
    const fs = this.options.fileSystem;
    const now = this.now();
    const last = await this.lastRun();
    if (last !== undefined && now.getTime() - last < this.intervalMs) return;
    const oldest = dayOf(new Date(now.getTime() - (this.keepDays - 1) * 86_400_000));
    const due = (await listLedgers(fs)).filter((p) => ledgerDayOf(p)! < oldest);
    if (!due.length) return;
    const ledgers = await Promise.all(due.map(async (path) => ({ path, text: (await readText(fs, path)) ?? '' })));
    const current = (await readText(fs, WORKSPACE_LAYOUT.memory)) ?? '';
    const memory = await consolidate(
      model,
      current,
      ledgers,
      this.maxChars,
      AbortSignal.timeout(this.options.timeoutMs ?? 300_000),
    );
    signal.throwIfAborted(); // the lease was lost: another process may run now
    const stamp = now.toISOString().replace(/[:.]/g, '-');
    if (current.trim()) await fs.writeFile(`${MEMORY_ARCHIVE}/MEMORY-${stamp}.md`, current);
    await editSerially(fs, WORKSPACE_LAYOUT.memory, () => fs.writeFile(WORKSPACE_LAYOUT.memory, `${memory}\n`));
    const archived: string[] = [];
    for (const { path, text } of ledgers) {
      const target = `${MEMORY_ARCHIVE}/${path.slice(WORKSPACE_LAYOUT.memoryDir.length + 1)}`;
      await editSerially(fs, path, async () => {
        // A ledger written to since it was read keeps its new lines: archive what was consolidated only.
        const latest = (await readText(fs, path)) ?? '';
        const previous = (await readText(fs, target)) ?? '';
        await fs.writeFile(target, previous ? `${previous.trimEnd()}\n\n${text}` : text);
        if (latest === text) await fs.removeFile(path);
        else if (latest.startsWith(text)) await fs.writeFile(path, latest.slice(text.length).trimStart());
      });
      archived.push(target);
    }
    await fs.writeFile(MAINTENANCE_FILE, JSON.stringify({ lastRunAt: now.toISOString() }));
    await emit('memory_consolidated', { ledgers: due, archived, chars: memory.length });
  }

  private async lastRun(): Promise<number | undefined> {
    const text = await readText(this.options.fileSystem, MAINTENANCE_FILE);
    if (!text) return undefined;
    try {
      const at = Date.parse((JSON.parse(text) as { lastRunAt?: string }).lastRunAt ?? '');
      return Number.isNaN(at) ? undefined : at;
    } catch {
      return undefined; // unreadable: run now, and the run rewrites it
    }
  }
}
