import type { AgentOptions } from '@rxscope/core';
import type { CompactionOptions, ToolResultEvictionOptions } from '../context/index.js';
import type {
  AtPathExpansionOptions,
  WorkspaceContextOptions,
  WorkspaceSnapshotMiddlewareOptions,
  WorkspaceFileSystem,
} from '../workspace/index.js';
import type { SandboxLifecycleOptions, SandboxChoice, SandboxLease } from '../sandbox/index.js';
import type { TodoListOptions } from '../planning/index.js';
import type { HarnessMemoryOptions } from '../memory/index.js';
import type { MessageBus } from '../bus/index.js';
import type { InboxOptions } from '../inbox/index.js';
import type { AsyncToolOptions, BackgroundTasks } from '../tasks/index.js';
import type { SubagentsOptions } from '../subagents/index.js';
import type { SkillCuratorOptions } from '../skills/index.js';
import type { ReadFileOptions, EditFileOptions, GrepFilesOptions } from '../tools/index.js';

/**
 * Options of `createHarnessAgent`: every `AgentOptions` field (the user's `middlewares` are
 * the outermost), plus the harness parts. Each part can be switched off; a preset is a plain
 * object of these options, composed by spreading (later keys win).
 *
 * @example
 * ```ts
 * const options: HarnessOptions = { ...presets.coding(), model, workspace: './ws', planMode: false };
 * ```
 */
export interface HarnessOptions extends Omit<AgentOptions, 'model'> {
  readonly model?: AgentOptions['model'];
  /** The workspace folder, created with its layout when missing. Required. */
  readonly workspace?: string;
  /** The workspace's files (default: `LocalFileSystem` on `workspace`). */
  readonly fileSystem?: WorkspaceFileSystem;
  /** File tools: all six, the read-only four (`'read-only'`), or none. Default true. */
  readonly fileTools?: boolean | 'read-only';
  /** Limits of `read_file`. */
  readonly readFile?: ReadFileOptions;
  /** Limits of `edit_file` (the largest file it edits). */
  readonly editFile?: EditFileOptions;
  /** Limits of `grep_files` (matches, file size, search time). */
  readonly grepFiles?: GrepFilesOptions;
  /** Where `execute` runs; `'none'` gives the agent no shell. Default `'none'`. */
  readonly sandbox?: SandboxChoice;
  /**
   * One driver per session's sandbox across processes (`RedisSandboxLease` from
   * `@rxscope/harness/redis`): a reply takes the lease before it acquires the sandbox, and fails
   * with a `SandboxBusyError` when another process holds it. Default: none (one process).
   */
  readonly sandboxLease?: SandboxLease;
  /**
   * The workspace's files saved with the session (in the agent state) and restored where the
   * session resumes, so another machine finds them. Default false (it grows every saved state).
   * `onError` hears of a snapshot or a restore that failed (default `console.error`).
   */
  readonly workspaceSnapshot?: boolean | Omit<WorkspaceSnapshotMiddlewareOptions, 'fileSystem'>;
  /** Options of the `execute` tool (it asks for permission by default). */
  readonly execute?: Pick<
    SandboxLifecycleOptions,
    'askPermission' | 'defaultTimeoutS' | 'maxTimeoutS' | 'maxOutputChars'
  >;
  /** Older messages summarised when the conversation grows too long. Default on. */
  readonly compaction?: false | Omit<CompactionOptions, 'fileSystem'>;
  /** Large tool results written to the workspace and replaced by a pointer. Default on. */
  readonly toolResultEviction?: false | Omit<ToolResultEvictionOptions, 'fileSystem'>;
  /** Plan mode and the plan tools. Default false. */
  readonly planMode?: boolean;
  /** The `write_todos` task list. Default true. */
  readonly todos?: boolean | TodoListOptions;
  /** Date, workspace, `AGENTS.md`, `MEMORY.md` and the knowledge index in the system prompt. Default true. */
  readonly workspaceContext?: boolean | Omit<WorkspaceContextOptions, 'workspace'>;
  /** `@path` in user messages attaches the file. Default true. */
  readonly atPathExpansion?: boolean | Omit<AtPathExpansionOptions, 'fileSystem'>;
  /**
   * Memory: the detached flush after each reply, its maintenance into `MEMORY.md`, and the memory
   * tools. Default false (the flush is a model call after every reply: a cost you opt into).
   */
  readonly memory?: boolean | HarnessMemoryOptions;
  /**
   * The message bus of the inbox and of background work. Default: an `InMemoryMessageBus` of
   * this agent (one process); a `RedisMessageBus` lets other processes reach the session.
   */
  readonly bus?: MessageBus;
  /** Messages pushed to `inbox:<sessionId>` on the bus join the running reply. Default true. */
  readonly inbox?: boolean | Omit<InboxOptions, 'bus'>;
  /**
   * A tool call still running after `timeoutMs` (default 60 s) gets a placeholder result and goes
   * on in the background; its result comes through the inbox. Default on (off without the inbox).
   */
  readonly asyncTools?: boolean | Omit<AsyncToolOptions, 'tasks'>;
  /**
   * `agent_spawn`, `agent_send`, `task_output`, `task_cancel`: subagents declared in
   * `subagents/<name>.md` or general-purpose ones. Default on.
   */
  readonly subagents?: boolean | Omit<SubagentsOptions, 'fileSystem' | 'tasks' | 'depth'>;
  /**
   * Skills: `skills/<name>/SKILL.md` listed in `<available_skills>`, `load_skill`, usage counts,
   * and the curator of agent-written skills (stale, then archived). Default on.
   */
  readonly skills?: boolean | Omit<SkillCuratorOptions, 'fileSystem'>;
  /** The background work of this agent (late tool calls, background subagents). Default: new ones on `bus`. */
  readonly tasks?: BackgroundTasks;
}
