import { builtOne, partEnv, toolNamesOf } from '../__tests__/part-env.js';
import { PlanModeMiddleware } from './plan-mode/index.js';
import { planModePart, todoListPart } from './planning-parts.js';
import { TodoListMiddleware } from './todo-list/index.js';

describe('the planning parts', () => {
  const env = partEnv();
  afterAll(() => env.cleanup());

  it('the task list is on by default (write_todos) and off with false', () => {
    const on = builtOne(todoListPart, {}, env);
    expect(on.middleware).toBeInstanceOf(TodoListMiddleware);
    expect(toolNamesOf(on)).toEqual(['write_todos']);
    expect(builtOne(todoListPart, { todos: {} }, env).part.enabled).toBe(true);
    expect(builtOne(todoListPart, { todos: false }, env).part).toEqual({
      name: 'TodoListMiddleware',
      option: 'todos',
      enabled: false,
      reason: 'todos: false',
    });
  });

  it('plan mode is on only when planMode is true, with its three tools', () => {
    expect(builtOne(planModePart, {}, env).part).toMatchObject({ enabled: false, reason: 'planMode is not true' });
    expect(builtOne(planModePart, { planMode: false }, env).middleware).toBeUndefined();
    const on = builtOne(planModePart, { planMode: true }, env);
    expect(on.middleware).toBeInstanceOf(PlanModeMiddleware);
    expect(toolNamesOf(on)).toEqual(['plan_enter', 'plan_write', 'plan_exit']);
  });
});
