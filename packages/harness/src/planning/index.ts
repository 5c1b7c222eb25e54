// What the rest of the harness may use of planning/: its other files are its own.
export { PlanModeMiddleware, type PlanModeOptions, type PlanModeState } from './plan-mode/index.js';
export { planTools, type PlanTools } from './plan-mode/plan-tools.js';
export { TodoListMiddleware, type Todo, type TodoListOptions } from './todo-list/index.js';
