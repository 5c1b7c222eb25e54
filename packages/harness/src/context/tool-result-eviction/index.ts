/**
 * `ToolResultEvictionMiddleware` (`onActing`): a tool result longer than `maxResultChars` is
 * written whole to `large_tool_results/` in the workspace and replaced, in the current step and
 * in the persisted conversation, by a pointer with a head and a tail preview. The shell's
 * output is evicted like any other result. Emits `CUSTOM {name: 'tool_result_evicted', value:
 * {toolCallId, path, chars}}`.
 *
 * What users of other harnesses ran into, and what this one does:
 * - The file tools' own results are not evicted (`exclude`, default: `read_file`,
 *   `grep_files`, `glob_files`, `list_files`, `write_file`, `edit_file`): reading an evicted
 *   file back with `read_file` cannot be evicted again, so no evict/read loop, even on a file
 *   of a few huge lines (`read_file` cuts long lines and long results itself).
 * - A result is evicted at most once: a pointer is never evicted.
 * - Every evicted result gets its own file: the name is the tool-call id made safe and cut to
 *   64 characters, plus a unique suffix, so empty, repeated or very long ids never collide and
 *   never exceed the file-name limit.
 * - Evicted files do not pile up: at most `maxFiles` (default 100) are kept, the oldest are
 *   deleted when a new one is written, and files older than `maxAgeDays` (default 7) too.
 * - The pointer suggests only tools the agent has (`read_file`, `grep_files`), else just the path.
 * - A write failure leaves the result untouched (and emits `tool_result_eviction_failed`).
 *
 * @example
 * ```ts
 * new ToolResultEvictionMiddleware({ fileSystem: new LocalFileSystem('./ws'), maxResultChars: 40_000 });
 * ```
 *
 * @module
 */
import { concatMap, from, type Observable, of } from 'rxjs';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  type AgentEventOf,
  type Middleware,
  newId,
  type Next,
  type RuntimeContext,
  type ToolResultContent,
  optionKeys,
} from '@rxscope/core';
import { WORKSPACE_LAYOUT, type WorkspaceFileSystem } from '../../workspace/index.js';
import { HarnessOptionError, refuseUnknownOptions } from '../../options/index.js';

/** Options of {@link ToolResultEvictionMiddleware}. */
export interface ToolResultEvictionOptions {
  readonly fileSystem: WorkspaceFileSystem;
  /** Results with more text than this are evicted. Default 80,000 characters. */
  readonly maxResultChars?: number;
  /** Characters of the head preview. Default 2,000 (at most a quarter of `maxResultChars`). */
  readonly headChars?: number;
  /** Characters of the tail preview. Default 1,000 (at most a quarter of `maxResultChars`). */
  readonly tailChars?: number;
  /** Tools whose results are never evicted. Default: the file tools. */
  readonly exclude?: readonly string[];
  /** Evicted files kept at most (oldest deleted first). Default 100. */
  readonly maxFiles?: number;
  /** Evicted files older than this are deleted when a new one is written. Default 7. */
  readonly maxAgeDays?: number;
}

/** The file tools, whose results are never evicted by default. */
export const FILE_TOOL_NAMES: readonly string[] = [
  'read_file',
  'write_file',
  'edit_file',
  'list_files',
  'glob_files',
  'grep_files',
];

const POINTER = '[Tool result evicted:';

// Every option, typed against ToolResultEvictionOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<ToolResultEvictionOptions>({
  fileSystem: true,
  maxResultChars: true,
  headChars: true,
  tailChars: true,
  exclude: true,
  maxFiles: true,
  maxAgeDays: true,
});

/** See the module documentation. */
export class ToolResultEvictionMiddleware implements Middleware {
  readonly key = 'ToolResultEvictionMiddleware';
  readonly maxResultChars: number;
  private readonly fs: WorkspaceFileSystem;
  private readonly headChars: number;
  private readonly tailChars: number;
  private readonly exclude: ReadonlySet<string>;
  private readonly maxFiles: number;
  private readonly maxAgeMs: number;

  constructor(options: ToolResultEvictionOptions) {
    refuseUnknownOptions('ToolResultEvictionMiddleware', options, OPTION_KEYS);
    if (!options?.fileSystem)
      throw new HarnessOptionError(
        'invalid_option',
        'ToolResultEvictionMiddleware.fileSystem',
        'ToolResultEvictionMiddleware needs the workspace fileSystem (where evicted results go).',
      );
    this.fs = options.fileSystem;
    this.maxResultChars = options.maxResultChars ?? 80_000;
    if (!(this.maxResultChars >= 100))
      throw new RangeError(`maxResultChars must be at least 100, got ${options.maxResultChars}.`);
    this.headChars = Math.min(options.headChars ?? 2000, Math.floor(this.maxResultChars / 4));
    this.tailChars = Math.min(options.tailChars ?? 1000, Math.floor(this.maxResultChars / 4));
    this.exclude = new Set(options.exclude ?? FILE_TOOL_NAMES);
    this.maxFiles = Math.max(1, options.maxFiles ?? 100);
    this.maxAgeMs = (options.maxAgeDays ?? 7) * 24 * 3600 * 1000;
  }

  onActing(
    agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    if (this.exclude.has(input.tool.name)) return next(input);
    return next(input).pipe(
      concatMap((e) => {
        if (e.type !== 'TOOL_RESULT_END' || e.toolCallId !== input.toolCall.id) return of(e);
        const text = textOf(e.output);
        if (text.length <= this.maxResultChars || text.startsWith(POINTER)) return of(e);
        return from(this.evict(agent, ctx, e, text)).pipe(concatMap((events) => events));
      }),
    );
  }

  private async evict(
    agent: AgentHandle,
    ctx: RuntimeContext,
    end: AgentEventOf<'TOOL_RESULT_END'>,
    text: string,
  ): Promise<AgentEvent[]> {
    const safeId = end.toolCallId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'call';
    const path = `${WORKSPACE_LAYOUT.largeToolResults}/${safeId}-${newId('r').slice(-10)}.txt`;
    try {
      await this.fs.writeFile(path, text);
    } catch (e) {
      return [
        end,
        ctx.event('CUSTOM', {
          name: 'tool_result_eviction_failed',
          value: { toolCallId: end.toolCallId, error: (e as Error).message },
        }),
      ];
    }
    await this.prune(path).catch(() => undefined);
    const pointer = this.pointer(agent, path, text);
    const output: ToolResultContent[] = [
      { type: 'text', text: pointer },
      ...end.output.filter((b) => b.type !== 'text'),
    ];
    return [
      { ...end, output },
      ctx.event('CUSTOM', {
        name: 'tool_result_evicted',
        value: { toolCallId: end.toolCallId, path, chars: text.length },
      }),
    ];
  }

  private pointer(agent: AgentHandle, path: string, text: string): string {
    const lines = text.split('\n').length;
    const has = (name: string) => agent.tools.some((t) => t.name === name);
    const how = [
      has('read_file') ? `read it in parts with read_file {"path": "${path}", "offset": 1, "limit": 200}` : '',
      has('grep_files') ? `search it with grep_files {"pattern": "...", "path": "${path}"}` : '',
    ].filter(Boolean);
    return (
      `${POINTER} ${text.length.toLocaleString('en-US')} characters (${lines.toLocaleString('en-US')} lines) were too long for the context ` +
      `and were saved to ${path}${how.length ? `; ${how.join(', or ')}` : ''}.]\n` +
      `--- first ${this.headChars.toLocaleString('en-US')} characters ---\n${text.slice(0, this.headChars)}\n` +
      `--- last ${this.tailChars.toLocaleString('en-US')} characters ---\n${text.slice(-this.tailChars)}`
    );
  }

  /** Keeps at most `maxFiles` evicted files, none older than `maxAgeDays` (the new one always stays). */
  private async prune(keep: string): Promise<void> {
    const entries = (await this.fs.list(WORKSPACE_LAYOUT.largeToolResults)).filter(
      (e) => e.type === 'file' && e.path !== keep,
    );
    const stats = (await Promise.all(entries.map((e) => this.fs.stat(e.path)))).filter((s) => s !== undefined);
    stats.sort((a, b) => b.mtimeMs - a.mtimeMs);
    const now = Date.now();
    const doomed = stats.filter((s, i) => i >= this.maxFiles - 1 || now - s.mtimeMs > this.maxAgeMs);
    for (const s of doomed) await this.fs.removeFile(s.path).catch(() => undefined);
  }
}

function textOf(output: readonly ToolResultContent[]): string {
  let text = '';
  for (const b of output) if (b.type === 'text') text += b.text;
  return text;
}
