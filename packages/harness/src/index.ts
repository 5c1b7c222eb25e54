// @rxscope/harness — public API. Explicit named exports only.

// assembly
export { createHarnessAgent, describeHarness } from './assembly/create-harness-agent.js';
export type { HarnessDescription, HarnessPart } from './assembly/create-harness-agent.js';
export type { HarnessOptions } from './assembly/harness-options.js';
export type { HarnessMemoryOptions } from './memory/memory-parts.js';
export type { SandboxChoice } from './sandbox/sandbox-choice.js';
export { presets } from './assembly/presets.js';

// workspace
export { ensureWorkspace, WORKSPACE_LAYOUT } from './workspace/layout.js';
export { LocalFileSystem } from './workspace/local-file-system.js';
export { DEFAULT_MAX_READ_BYTES } from './workspace/workspace-file-system.js';
export type {
  WorkspaceEntry,
  WorkspaceFileSystem,
  WorkspaceGlobOptions,
  WorkspaceReadOptions,
  WorkspaceStat,
} from './workspace/workspace-file-system.js';
export { WorkspacePathError } from './workspace/workspace-path-error.js';
export type { WorkspacePathErrorCode } from './workspace/workspace-path-error.js';
export { FileTooLargeError } from './workspace/file-too-large-error.js';
export type { FileTooLargeErrorOptions } from './workspace/file-too-large-error.js';
export { PatternError } from './search/pattern-error.js';
export type { PatternErrorCode } from './search/pattern-error.js';
export { HarnessOptionError } from './options/harness-option-error.js';
export type { HarnessOptionErrorCode } from './options/harness-option-error.js';

// file tools
export { readFileTool } from './tools/read-file.js';
export type { ReadFileOptions } from './tools/read-file.js';
export { writeFileTool } from './tools/write-file.js';
export { editFileTool } from './tools/edit-file.js';
export type { EditFileOptions } from './tools/edit-file.js';
export { listFilesTool } from './tools/list-files.js';
export { globFilesTool } from './tools/glob-files.js';
export { grepFilesTool } from './tools/grep-files.js';
export type { GrepFilesOptions } from './tools/grep-files.js';
export { memorySearchTool } from './memory/tools/memory-search.js';
export { memoryGetTool } from './memory/tools/memory-get.js';
export { memorySaveTool } from './memory/tools/memory-save.js';

// sandboxes
export type { ExecEvent, ExecOptions, Sandbox, SandboxSession } from './sandbox/sandbox.js';
export { LocalSandbox } from './sandbox/local-sandbox.js';
export type { LocalSandboxOptions } from './sandbox/local-sandbox.js';
export { BubblewrapSandbox } from './sandbox/bubblewrap-sandbox.js';
export type { BubblewrapSandboxOptions } from './sandbox/bubblewrap-sandbox.js';
export { SandboxBusyError } from './sandbox/sandbox-lease.js';
export { LeaseBusyError } from './coordination/lease.js';
export type { HeldLease, Lease } from './coordination/lease.js';
export type { HeldSandboxLease, SandboxLease } from './sandbox/sandbox-lease.js';

// middlewares
export { SANDBOX_SESSION, SandboxLifecycleMiddleware } from './sandbox/sandbox-lifecycle/index.js';
export type { SandboxLifecycleOptions } from './sandbox/sandbox-lifecycle/index.js';
export { WorkspaceContextMiddleware } from './workspace/workspace-context/index.js';
export type { WorkspaceContextOptions } from './workspace/workspace-context/index.js';
export { AtPathExpansionMiddleware, mentionsIn } from './workspace/at-path-expansion/index.js';
export type { AtPathExpansionOptions } from './workspace/at-path-expansion/index.js';
export { PlanModeMiddleware } from './planning/plan-mode/index.js';
export type { PlanModeOptions, PlanModeState } from './planning/plan-mode/index.js';
export { planTools } from './planning/plan-mode/plan-tools.js';
export type { PlanTools } from './planning/plan-mode/plan-tools.js';
export { TodoListMiddleware } from './planning/todo-list/index.js';
export type { Todo, TodoListOptions } from './planning/todo-list/index.js';
export { COMPACTION_SUMMARY, CompactionMiddleware } from './context/compaction/index.js';
export type { CompactionOptions } from './context/compaction/index.js';
export { contextWindowOf } from './context/compaction/context-window.js';
export { SUMMARY_SECTIONS, transcriptOf } from './context/compaction/summarize.js';
export { estimateTokens, TokenTally } from './context/compaction/token-count.js';
export type { TokenCounter } from './context/compaction/token-count.js';
export { MemoryFlushMiddleware } from './memory/memory-flush/index.js';
export type { MemoryFlushOptions } from './memory/memory-flush/index.js';
export { MAINTENANCE_FILE, MemoryMaintenanceMiddleware } from './memory/memory-maintenance/index.js';
export type { MemoryMaintenanceOptions } from './memory/memory-maintenance/index.js';
export type { DetachedReport } from './memory/detached-work.js';
export { MEMORY_ARCHIVE } from './memory/ledger.js';
export { FILE_TOOL_NAMES, ToolResultEvictionMiddleware } from './context/tool-result-eviction/index.js';
export type { ToolResultEvictionOptions } from './context/tool-result-eviction/index.js';

// workspace files with front matter (subagents/<name>.md, skills/<name>/SKILL.md)
export { FrontMatterError, formatFrontMatter, parseFrontMatter } from './workspace/front-matter.js';
export type { FrontMatterDocument } from './workspace/front-matter.js';

// message bus: queues, replay logs and broadcast, in memory or on Redis
export type { LogEntry, LogPage, LogReadOptions, MessageBus } from './bus/message-bus.js';
export { InMemoryMessageBus } from './bus/in-memory-message-bus.js';
export type { InMemoryMessageBusOptions } from './bus/in-memory-message-bus.js';
// RedisMessageBus: @rxscope/harness/redis

// the inbox: messages into a session's running reply, from any process on the bus
export { inboxQueueOf, pushToInbox } from './inbox/inbox-message.js';
export type { InboxMessage } from './inbox/inbox-message.js';
export { InboxMiddleware } from './inbox/inbox-middleware/index.js';
export type { InboxOptions } from './inbox/inbox-middleware/index.js';

// background work: tool calls that outlive a timeout, background subagents
export { BackgroundTasks } from './tasks/background-tasks.js';
export type { BackgroundTasksOptions, TaskInfo, TaskStatus, TrackedTask } from './tasks/background-tasks.js';
export { AsyncToolMiddleware, TASK_TOOL_NAMES } from './tasks/async-tool/index.js';
export type { AsyncToolOptions } from './tasks/async-tool/index.js';
export type { TaskEvent } from './tasks/background-tasks.js';

// subagents: subagents/<name>.md or general-purpose, on the core's asTool
export { SUBAGENT_TOOL_NAMES, SubagentsMiddleware } from './subagents/subagents-middleware/index.js';
export type { SubagentsOptions } from './subagents/subagents-middleware/index.js';
export { GENERAL_PURPOSE, listSubagents, loadSubagent, SUBAGENT_NAME } from './subagents/subagent-definition.js';
export type { SubagentDefinition } from './subagents/subagent-definition.js';
export type { SubagentTaskQueue, SubagentTaskRequest } from './subagents/subagent-task-queue.js';

// skills: skills/<name>/SKILL.md, load_skill, usage counts and the curator of agent-written skills
export { SkillCuratorMiddleware } from './skills/skill-curator/index.js';
export type { SkillCuratorOptions, SkillCuratorState } from './skills/skill-curator/index.js';
export { listSkills, loadSkill, SKILL_ARCHIVE, SKILL_NAME } from './skills/skill-definition.js';
export type { SkillDefinition } from './skills/skill-definition.js';
export { curateSkills, unmarkStale } from './skills/curate-skills.js';
export type { SkillCurationPolicy, SkillCurationResult, SkillUsage } from './skills/curate-skills.js';

// workspace snapshots: the workspace's files travel with the session
export { WorkspaceSnapshotMiddleware } from './workspace/workspace-snapshot/index.js';
export type { WorkspaceSnapshotMiddlewareOptions } from './workspace/workspace-snapshot/index.js';
export {
  restoreWorkspace,
  SNAPSHOT_EXCLUDED,
  SNAPSHOT_MARKER,
  snapshotIdOf,
  snapshotWorkspace,
} from './workspace/snapshot-workspace.js';
export type { SnapshotFile, WorkspaceSnapshot, WorkspaceSnapshotOptions } from './workspace/snapshot-workspace.js';
