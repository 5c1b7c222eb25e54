// @rxscope/harness — public API. Explicit named exports only.

// assembly
export { createHarnessAgent, describeHarness } from './assembly/index.js';
export type { HarnessDescription, HarnessPart } from './assembly/index.js';
export type { HarnessOptions } from './assembly/index.js';
export type { HarnessMemoryOptions } from './memory/index.js';
export type { SandboxChoice } from './sandbox/index.js';
export { presets } from './assembly/index.js';

// workspace
export { ensureWorkspace, WORKSPACE_LAYOUT } from './workspace/index.js';
export { LocalFileSystem } from './workspace/index.js';
export { DEFAULT_MAX_READ_BYTES } from './workspace/index.js';
export type {
  WorkspaceEntry,
  WorkspaceFileSystem,
  WorkspaceGlobOptions,
  WorkspaceReadOptions,
  WorkspaceStat,
} from './workspace/index.js';
export { WorkspacePathError } from './workspace/index.js';
export type { WorkspacePathErrorCode } from './workspace/index.js';
export { FileTooLargeError } from './workspace/index.js';
export type { FileTooLargeErrorOptions } from './workspace/index.js';
export { PatternError } from './search/index.js';
export type { PatternErrorCode } from './search/index.js';
export { HarnessOptionError } from './options/index.js';
export type { HarnessOptionErrorCode } from './options/index.js';

// file tools
export { readFileTool } from './tools/index.js';
export type { ReadFileOptions } from './tools/index.js';
export { writeFileTool } from './tools/index.js';
export { editFileTool } from './tools/index.js';
export type { EditFileOptions } from './tools/index.js';
export { listFilesTool } from './tools/index.js';
export { globFilesTool } from './tools/index.js';
export { grepFilesTool } from './tools/index.js';
export type { GrepFilesOptions } from './tools/index.js';
export { memorySearchTool } from './memory/index.js';
export { memoryGetTool } from './memory/index.js';
export { memorySaveTool } from './memory/index.js';

// sandboxes
export type { ExecEvent, ExecOptions, Sandbox, SandboxSession } from './sandbox/index.js';
export { LocalSandbox } from './sandbox/index.js';
export type { LocalSandboxOptions } from './sandbox/index.js';
export { BubblewrapSandbox } from './sandbox/index.js';
export type { BubblewrapSandboxOptions } from './sandbox/index.js';
export { SandboxBusyError } from './sandbox/index.js';
export { LeaseBusyError } from './coordination/index.js';
export type { HeldLease, Lease } from './coordination/index.js';
export type { HeldSandboxLease, SandboxLease } from './sandbox/index.js';

// middlewares
export { SANDBOX_SESSION, SandboxLifecycleMiddleware } from './sandbox/index.js';
export type { SandboxLifecycleOptions } from './sandbox/index.js';
export { WorkspaceContextMiddleware } from './workspace/index.js';
export type { WorkspaceContextOptions } from './workspace/index.js';
export { AtPathExpansionMiddleware, mentionsIn } from './workspace/index.js';
export type { AtPathExpansionOptions } from './workspace/index.js';
export { PlanModeMiddleware } from './planning/index.js';
export type { PlanModeOptions, PlanModeState } from './planning/index.js';
export { planTools } from './planning/index.js';
export type { PlanTools } from './planning/index.js';
export { TodoListMiddleware } from './planning/index.js';
export type { Todo, TodoListOptions } from './planning/index.js';
export { COMPACTION_SUMMARY, CompactionMiddleware } from './context/index.js';
export type { CompactionOptions } from './context/index.js';
export { contextWindowOf } from './context/index.js';
export { SUMMARY_SECTIONS, transcriptOf } from './context/index.js';
export { estimateTokens, TokenTally } from './context/index.js';
export type { TokenCounter } from './context/index.js';
export { MemoryFlushMiddleware } from './memory/index.js';
export type { MemoryFlushOptions } from './memory/index.js';
export { MAINTENANCE_FILE, MemoryMaintenanceMiddleware } from './memory/index.js';
export type { MemoryMaintenanceOptions } from './memory/index.js';
export type { DetachedReport } from './memory/index.js';
export { MEMORY_ARCHIVE } from './memory/index.js';
export { FILE_TOOL_NAMES, ToolResultEvictionMiddleware } from './context/index.js';
export type { ToolResultEvictionOptions } from './context/index.js';

// workspace files with front matter (subagents/<name>.md, skills/<name>/SKILL.md)
export { FrontMatterError, formatFrontMatter, parseFrontMatter } from './workspace/index.js';
export type { FrontMatterDocument } from './workspace/index.js';

// message bus: queues, replay logs and broadcast, in memory or on Redis
export type { LogEntry, LogPage, LogReadOptions, MessageBus } from './bus/index.js';
export { InMemoryMessageBus } from './bus/index.js';
export type { InMemoryMessageBusOptions } from './bus/index.js';
// RedisMessageBus: @rxscope/harness/redis

// the inbox: messages into a session's running reply, from any process on the bus
export { INBOX_WAKE_CHANNEL, InboxWakeUps, inboxQueueOf, pushToInbox, wakeQueueOf } from './inbox/index.js';
export type { InboxMessage, InboxWakeUpsOptions, WakeableSessions } from './inbox/index.js';
export { InboxMiddleware } from './inbox/index.js';
export type { InboxOptions } from './inbox/index.js';

// background work: tool calls that outlive a timeout, background subagents
export { BackgroundTasks } from './tasks/index.js';
export type { BackgroundTasksOptions, TaskInfo, TaskStatus, TrackedTask } from './tasks/index.js';
export { AsyncToolMiddleware, TASK_TOOL_NAMES } from './tasks/index.js';
export type { AsyncToolOptions } from './tasks/index.js';
export type { TaskEvent } from './tasks/index.js';

// subagents: subagents/<name>.md or general-purpose, on the core's asTool
export { SUBAGENT_TOOL_NAMES, SubagentsMiddleware } from './subagents/index.js';
export type { SubagentsOptions } from './subagents/index.js';
export { GENERAL_PURPOSE, listSubagents, loadSubagent, SUBAGENT_NAME } from './subagents/index.js';
export type { SubagentDefinition } from './subagents/index.js';
export type { SubagentTaskQueue, SubagentTaskRequest } from './subagents/index.js';

// skills: skills/<name>/SKILL.md, load_skill, usage counts and the curator of agent-written skills
export { SkillCuratorMiddleware } from './skills/index.js';
export type { SkillCuratorOptions, SkillCuratorState } from './skills/index.js';
export { listSkills, loadSkill, SKILL_ARCHIVE, SKILL_NAME } from './skills/index.js';
export type { SkillDefinition } from './skills/index.js';
export { curateSkills, unmarkStale } from './skills/index.js';
export type { SkillCurationPolicy, SkillCurationResult, SkillUsage } from './skills/index.js';

// workspace snapshots: the workspace's files travel with the session
export { WorkspaceSnapshotMiddleware } from './workspace/index.js';
export type { WorkspaceSnapshotMiddlewareOptions } from './workspace/index.js';
export {
  restoreWorkspace,
  SNAPSHOT_EXCLUDED,
  SNAPSHOT_MARKER,
  snapshotIdOf,
  snapshotWorkspace,
} from './workspace/index.js';
export type {
  RestoreWorkspaceOptions,
  SnapshotFile,
  SnapshotHistoryLimits,
  WorkspaceSnapshot,
  WorkspaceSnapshotOptions,
} from './workspace/index.js';
