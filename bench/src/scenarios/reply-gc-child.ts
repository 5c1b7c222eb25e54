/**
 * The child-process side of the reply-gc scenario: sequential replies of the S1 exchange
 * replayed from memory, measuring what each reply leaves to the garbage collector.
 */
import type { ChatModel } from '@rxscope/core';
import { PerformanceObserver, constants as perf } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import type { ComparedBuild } from '../harness/compare-build.js';
import { ReplayModel } from './agent-loop-memory.js';
import { builtins, exchangeAgent, modelReply, passThrough, rxscopeReply } from './exchange.js';
import { comparedBuild, currentBuild, setComparedBuild, type RxscopeBuild } from './rxscope-build.js';

/** What one contender is, in the child: the floor (`replay`) or an rxscope stack, of this tree or of the compared commit. */
export interface ReplyGcArgs {
  readonly kind: 'replay' | 'rxscope' | 'rxscope+10mw' | 'rxscope+builtins';
  readonly compared?: ComparedBuild;
  readonly warmup: number;
  readonly replies: number;
}

/** Per reply, averaged over the measured replies. */
export interface ReplyGcFigures {
  /** Bytes the old generation grew by (objects that survived young-generation collections). */
  readonly promotedBytes: number;
  /** Time in young-generation collections (scavenges), µs. */
  readonly minorGcUs: number;
  /** Time in full collections (mark-compact, incremental marking steps), µs. */
  readonly majorGcUs: number;
  /** CPU time of the process, µs (the collections' parallel work included). */
  readonly cpuUs: number;
}

const oldSpaceUsed = (): number => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;

/** Runs the replies of one contender and returns its figures. */
export async function replyGc(args: ReplyGcArgs): Promise<ReplyGcFigures> {
  let build: RxscopeBuild = currentBuild;
  if (args.compared) {
    setComparedBuild(args.compared);
    build = (await comparedBuild())!;
  }
  const model: ChatModel = new ReplayModel();
  const middlewares =
    args.kind === 'rxscope+10mw' ? passThrough(10) : args.kind === 'rxscope+builtins' ? builtins(build) : [];
  const reply =
    args.kind === 'replay' ? () => modelReply(model) : () => rxscopeReply(exchangeAgent(model, middlewares, build));
  for (let i = 0; i < args.warmup; i++) await reply();
  (globalThis as { gc?: () => void }).gc?.();

  let minorMs = 0;
  let majorMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === perf.NODE_PERFORMANCE_GC_MINOR) minorMs += entry.duration;
      else if (kind === perf.NODE_PERFORMANCE_GC_MAJOR || kind === perf.NODE_PERFORMANCE_GC_INCREMENTAL)
        majorMs += entry.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  // The old generation only grows between full collections, by what scavenges promote (a drop
  // is a full collection): the sum of its growths, read after each reply, is what was promoted.
  let promoted = 0;
  let last = oldSpaceUsed();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < args.replies; i++) {
    await reply();
    const now = oldSpaceUsed();
    if (now > last) promoted += now - last;
    last = now;
  }
  const cpu = process.cpuUsage(cpu0);
  // GC entries are delivered asynchronously: let the last ones arrive.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return {
    promotedBytes: promoted / args.replies,
    minorGcUs: (minorMs * 1000) / args.replies,
    majorGcUs: (majorMs * 1000) / args.replies,
    cpuUs: (cpu.user + cpu.system) / args.replies,
  };
}
