/**
 * S6 — what a reply leaves to the garbage collector: sequential replies of the S1 exchange,
 * replayed from memory, each contender in a fresh child process; bytes promoted to the old
 * generation per reply, time in collections, CPU time. Deterministic where timings are not:
 * it catches a change that makes a reply's objects outlive it (a closure held by a listener, a
 * hidden class per object), which over a real socket is paid by every collection during a reply.
 */
import { runInChild } from '../harness/child-process.js';
import type { CustomScenario, Table } from '../harness/scenario.js';
import { BUILTINS_LABEL } from './exchange.js';
import type { ReplyGcArgs, ReplyGcFigures } from './reply-gc-child.js';
import { comparedBuildInfo } from './rxscope-build.js';

const KINDS: readonly ReplyGcArgs['kind'][] = ['replay', 'rxscope', 'rxscope+10mw', 'rxscope+builtins'];
const LABELS: Record<ReplyGcArgs['kind'], string> = {
  replay: 'the floor: the replayed exchange driven by hand (no agent)',
  rxscope: '`Agent.reply()`, no middleware',
  'rxscope+10mw': '`Agent.reply()`, 10 pass-through middlewares on every hook',
  'rxscope+builtins': `\`Agent.reply()\` with ${BUILTINS_LABEL}`,
};

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const us = (v: number) => v.toFixed(0);

export const replyGc: CustomScenario = {
  kind: 'custom',
  id: 'reply-gc',
  title: 'S6 — What a reply leaves to the garbage collector',
  description:
    'Sequential replies of the S1 exchange (two model calls of 20 text deltas, an `add` tool call between) replayed from memory by the `ReplayModel` of S1 in memory; a new `Agent` per reply, as in S1. ' +
    'Each contender runs in a fresh child process: warm-up replies, a full GC, then the measured replies. ' +
    "Promoted = the old generation's growth per reply (summed between full collections): objects of a reply that survived young-generation collections. " +
    "Minor / major GC = time in scavenges / in full collections per reply (`PerformanceObserver` gc entries); CPU = the process's CPU time per reply. " +
    'A reply should leave nothing but its messages in the agent: what it promotes beyond the floor, every collection during a reply over a real socket copies again.',
  sizes: { quick: { warmup: 20, rounds: 100 }, full: { warmup: 2000, rounds: 10_000 } },
  async run(ctx) {
    const { warmup, rounds: replies, quick } = ctx.config;
    const compared = comparedBuildInfo();
    const runs: { name: string; label: string; args: ReplyGcArgs }[] = [];
    for (const kind of KINDS) {
      runs.push({ name: kind, label: LABELS[kind], args: { kind, warmup, replies } });
      if (compared && kind !== 'replay') {
        runs.push({
          name: `${kind}@${compared.sha}`,
          label: `${LABELS[kind]} (commit ${compared.sha})`,
          args: { kind, warmup, replies, compared },
        });
      }
    }
    const rows: string[][] = [];
    let floor: ReplyGcFigures | undefined;
    for (const run of runs) {
      if (ctx.only?.length && !ctx.only.includes(run.name) && run.name !== 'replay') continue;
      ctx.log(`${run.name}: ${replies} replies`);
      const { result } = await runInChild<ReplyGcFigures>(
        new URL('./reply-gc-child.js', import.meta.url).href,
        'replyGc',
        run.args,
        undefined,
        { inProcess: quick },
      );
      floor ??= result;
      rows.push([
        run.name,
        run.label,
        kb(result.promotedBytes),
        run.name === 'replay' ? '(floor)' : `+${kb(result.promotedBytes - floor.promotedBytes)}`,
        us(result.minorGcUs),
        us(result.majorGcUs),
        us(result.cpuUs),
        run.name === 'replay' ? '(floor)' : `+${us(result.cpuUs - floor.cpuUs)}`,
      ]);
    }
    const table: Table = {
      title: 'Per reply',
      columns: [
        'contender',
        'what',
        'promoted (KB)',
        'above the floor (KB)',
        'minor GC (µs)',
        'major GC (µs)',
        'CPU (µs)',
        'CPU above the floor (µs)',
      ],
      align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right'],
      rows,
    };
    return { tables: [table], notes: [`${warmup} warm-up replies, then ${replies} measured replies per contender`] };
  },
};
