/**
 * `WorkspaceContextMiddleware` (`onSystemPrompt`): tells the model where it works, on every
 * reasoning step:
 *
 * - today's date (the date only, so a provider's prompt cache holds all day);
 * - the workspace: its folder and layout (paths in tools are relative to it);
 * - `AGENTS.md`: the user's instructions for the agent, whole up to `maxAgentsChars`;
 * - `MEMORY.md`: long-lived notes, capped at `memoryTokens` (about 4 characters a token) with a
 *   note saying the rest can be read with `read_file`;
 * - the knowledge index: the files under `knowledge/` (at most `maxKnowledgeFiles`).
 *
 * Files are read confined to the workspace (a symlink leading out is skipped) and cached by
 * modification time and size, so an unchanged workspace costs a few `stat` calls per step.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, middlewares: [new WorkspaceContextMiddleware({ workspace: '/srv/ws', memoryTokens: 1_000 })] });
 * ```
 *
 * @module
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentHandle, Middleware, RuntimeContext } from '@rxscope/core';
import { WORKSPACE_LAYOUT } from '../layout.js';
import { readConfinedSync } from '../read-confined-sync.js';
import { optionKeys } from '@rxscope/core';
import { HarnessOptionError, refuseUnknownOptions } from '../../options/index.js';

/** Options of {@link WorkspaceContextMiddleware}. */
export interface WorkspaceContextOptions {
  /** Real path of the workspace. */
  readonly workspace: string;
  /** Tokens of `MEMORY.md` shown at most (about 4 characters a token). Default 2,000. */
  readonly memoryTokens?: number;
  /** Characters of `AGENTS.md` shown at most. Default 20,000. */
  readonly maxAgentsChars?: number;
  /** Files of `knowledge/` listed at most. Default 50. */
  readonly maxKnowledgeFiles?: number;
  /** The clock (for tests). Default `() => new Date()`. */
  readonly now?: () => Date;
}

interface Cached {
  readonly mtimeMs: number;
  readonly size: number;
  readonly text: string;
}

// Every option, typed against WorkspaceContextOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<WorkspaceContextOptions>({
  workspace: true,
  memoryTokens: true,
  maxAgentsChars: true,
  maxKnowledgeFiles: true,
  now: true,
});

/** See the module documentation. */
export class WorkspaceContextMiddleware implements Middleware {
  readonly key = 'WorkspaceContextMiddleware';
  private readonly root: string;
  private readonly memoryChars: number;
  private readonly maxAgentsChars: number;
  private readonly maxKnowledgeFiles: number;
  private readonly now: () => Date;
  // A cache of file contents by path: the same for every reply of this workspace, not per-reply state.
  private readonly files = new Map<string, Cached>();
  private knowledge: { mtimeMs: number; list: string } | undefined;

  constructor(options: WorkspaceContextOptions) {
    refuseUnknownOptions('WorkspaceContextMiddleware', options, OPTION_KEYS);
    if (typeof options?.workspace !== 'string' || options.workspace === '')
      throw new HarnessOptionError(
        'invalid_option',
        'WorkspaceContextMiddleware.workspace',
        'WorkspaceContextMiddleware needs the workspace path.',
      );
    this.root = options.workspace;
    this.memoryChars = (options.memoryTokens ?? 2000) * 4;
    this.maxAgentsChars = options.maxAgentsChars ?? 20_000;
    this.maxKnowledgeFiles = options.maxKnowledgeFiles ?? 50;
    this.now = options.now ?? (() => new Date());
  }

  onSystemPrompt(_agent: AgentHandle, _ctx: RuntimeContext, prompt: string): string {
    const sections: string[] = [];
    const date = this.now();
    sections.push(
      `## Workspace\nToday is ${date.toISOString().slice(0, 10)}. You work in the folder ${this.root}; paths in tools are relative to it ` +
        `and nothing outside it can be read or written. ${WORKSPACE_LAYOUT.agents} holds your instructions, ${WORKSPACE_LAYOUT.memory} ` +
        `your notes, ${WORKSPACE_LAYOUT.knowledge}/ reference documents, ${WORKSPACE_LAYOUT.plan} the current plan.`,
    );
    const agents = this.read(WORKSPACE_LAYOUT.agents, this.maxAgentsChars);
    if (agents) sections.push(`## Instructions (${WORKSPACE_LAYOUT.agents})\n${agents}`);
    const memory = this.read(WORKSPACE_LAYOUT.memory, this.memoryChars);
    if (memory) sections.push(`## Memory (${WORKSPACE_LAYOUT.memory})\n${memory}`);
    const knowledge = this.knowledgeIndex();
    if (knowledge) sections.push(`## Knowledge (read with read_file)\n${knowledge}`);
    const text = sections.join('\n\n');
    return prompt ? `${prompt}\n\n${text}` : text;
  }

  /** The trimmed text of a workspace file, cut at `maxChars` with a note; '' when absent or empty. */
  private read(path: string, maxChars: number): string {
    const absolute = join(this.root, path);
    const st = statSync(absolute, { throwIfNoEntry: false });
    if (!st?.isFile() || st.size === 0) return '';
    let cached = this.files.get(absolute);
    if (!cached || cached.mtimeMs !== st.mtimeMs || cached.size !== st.size) {
      // A byte budget a little over the character cap is enough to know whether to cut.
      const file = readConfinedSync(this.root, path, maxChars * 4 + 4);
      if (!file) return '';
      cached = { mtimeMs: st.mtimeMs, size: st.size, text: cut(file.text.trim(), maxChars, path) };
      this.files.set(absolute, cached);
    }
    return cached.text;
  }

  private knowledgeIndex(): string {
    const dir = join(this.root, WORKSPACE_LAYOUT.knowledge);
    const st = statSync(dir, { throwIfNoEntry: false });
    if (!st?.isDirectory()) return '';
    if (this.knowledge?.mtimeMs === st.mtimeMs) return this.knowledge.list;
    const files = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) =>
        join(e.parentPath ?? dir, e.name)
          .slice(this.root.length + 1)
          .split('\\')
          .join('/'),
      )
      .sort();
    const shown = files.slice(0, this.maxKnowledgeFiles).map((f) => `- ${f}`);
    if (files.length > shown.length)
      shown.push(`- … and ${files.length - shown.length} more (list them with glob_files)`);
    this.knowledge = { mtimeMs: st.mtimeMs, list: shown.join('\n') };
    return this.knowledge.list;
  }
}

function cut(text: string, maxChars: number, path: string): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[${path} is cut here (${text.length.toLocaleString('en-US')}+ characters); read the rest with read_file]`;
}
