// What the rest of the harness may use of subagents/: its other files are its own.
export {
  GENERAL_PURPOSE,
  SUBAGENT_NAME,
  listSubagents,
  loadSubagent,
  type SubagentDefinition,
} from './subagent-definition.js';
export { type SubagentTaskQueue, type SubagentTaskRequest } from './subagent-task-queue.js';
export { SUBAGENT_TOOL_NAMES, SubagentsMiddleware, type SubagentsOptions } from './subagents-middleware/index.js';
