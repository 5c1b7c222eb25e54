import { compactionPart, toolResultEvictionPart } from '../context/context-parts.js';
import { inboxPart } from '../inbox/inbox-part.js';
import { memoryParts } from '../memory/memory-parts.js';
import { planModePart, todoListPart } from '../planning/planning-parts.js';
import { sandboxPart } from '../sandbox/sandbox-part.js';
import { skillsPart } from '../skills/skills-part.js';
import { subagentsPart } from '../subagents/subagents-part.js';
import { asyncToolPart } from '../tasks/async-tool-part.js';
import { fileToolsPart } from '../tools/file-tools-part.js';
import { atPathExpansionPart, workspaceContextPart, workspaceSnapshotPart } from '../workspace/workspace-parts.js';

/**
 * The harness parts in chain order, outermost first (docs/harness.md's "The middleware order,
 * and why" table says why each sits where it does; a spec holds the table to this list).
 */
export const HARNESS_PARTS = [
  sandboxPart, // acquires the sandbox before anything of the reply runs, releases it last
  workspaceSnapshotPart, // a resumed session's files are back before anything reads them
  atPathExpansionPart, // rewrites the input before any step sees it
  inboxPart, // listens for the whole reply
  workspaceContextPart, // prompt sections, the most stable first...
  skillsPart,
  todoListPart,
  planModePart, // ...the plan-mode banner last; denies a call before any inner layer runs it
  subagentsPart, // binds spawns to the reply before an inner layer sends one to the background
  asyncToolPart, // inside plan mode, outside eviction
  compactionPart, // summarises before a step is assembled
  toolResultEvictionPart, // innermost on acting
  fileToolsPart,
  memoryParts, // detached work at a reply's end: where it sits changes nothing
] as const;
