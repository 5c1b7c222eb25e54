import { type HarnessPartDefinition, isOn, objectOf, offPart, onPart } from '../harness-part.js';
import { PlanModeMiddleware } from './plan-mode/index.js';
import { TodoListMiddleware, type TodoListOptions } from './todo-list/index.js';

/** The options the task list part reads. */
export interface TodoListPartOptions {
  readonly todos?: boolean | TodoListOptions;
}

/** `write_todos`: the task list, after the stable part of the prompt (it changes as the work goes). */
export const todoListPart: HarnessPartDefinition<TodoListPartOptions> = {
  build(options) {
    const name = 'TodoListMiddleware';
    if (!isOn(options.todos, true)) return offPart(name, 'todos', 'todos: false');
    return onPart(name, 'todos', 'write_todos keeps a task list, shown in the prompt and emitted as todos_updated', {
      middleware: new TodoListMiddleware(objectOf(options.todos)),
    });
  },
};

/** The options the plan mode part reads. */
export interface PlanModePartOptions {
  readonly planMode?: boolean;
}

/** Plan mode: its banner last in the prompt; it denies a call before any inner layer runs it. */
export const planModePart: HarnessPartDefinition<PlanModePartOptions> = {
  build(options, env) {
    const name = 'PlanModeMiddleware';
    if (options.planMode !== true) return offPart(name, 'planMode', 'planMode is not true');
    return onPart(name, 'planMode', 'plan_enter/plan_write/plan_exit; non-read-only tools denied while planning', {
      middleware: new PlanModeMiddleware({ fileSystem: env.fileSystem }),
    });
  },
};
