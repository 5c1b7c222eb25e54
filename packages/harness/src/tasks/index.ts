// What the rest of the harness may use of tasks/: its other files are its own.
export { AsyncToolMiddleware, TASK_TOOL_NAMES, type AsyncToolOptions } from './async-tool/index.js';
export {
  BackgroundTasks,
  taskResultMessage,
  type BackgroundTasksOptions,
  type TaskEvent,
  type TaskInfo,
  type TaskStatus,
  type TrackedTask,
} from './background-tasks.js';
