/**
 * `TodoListMiddleware`: the agent keeps a visible task list with `write_todos {todos: [{content,
 * status}]}` (status `pending`, `in_progress` or `completed`), as deepagents' `write_todos` and
 * Claude Code's todo tool do. Each call replaces the whole list. The list is persisted in the
 * agent state (under this middleware's key), rendered in the system prompt of every reasoning
 * step, and emitted as `CUSTOM {name: 'todos_updated', value: {todos}}` so a UI can show
 * progress.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, middlewares: [new TodoListMiddleware()] });
 * agent.reply('Refactor the parser').subscribe((e) => {
 *   if (e.type === 'CUSTOM' && e.name === 'todos_updated') render((e.value as { todos: Todo[] }).todos);
 * });
 * ```
 *
 * @module
 */
import { concatMap, type Observable, of } from 'rxjs';
import { z } from 'zod';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  defineTool,
  type Middleware,
  type Next,
  type RuntimeContext,
  type Tool,
  optionKeys,
} from '@rxscope/core';
import { refuseUnknownOptions } from '../../options/index.js';

/** One task of the list. */
export interface Todo {
  readonly content: string;
  readonly status: 'pending' | 'in_progress' | 'completed';
}

/** Options of {@link TodoListMiddleware}. */
export interface TodoListOptions {
  /** Most tasks in the list. Default 50. */
  readonly maxTodos?: number;
}

const MARK: Record<Todo['status'], string> = { completed: '[x]', in_progress: '[~]', pending: '[ ]' };

// Every option, typed against TodoListOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<TodoListOptions>({
  maxTodos: true,
});

/** See the module documentation. */
export class TodoListMiddleware implements Middleware {
  readonly key = 'TodoListMiddleware';
  private readonly tool: Tool<{ todos: Todo[] }>;

  constructor(options: TodoListOptions = {}) {
    refuseUnknownOptions('TodoListMiddleware', options, OPTION_KEYS);
    const max = options.maxTodos ?? 50;
    this.tool = defineTool({
      name: 'write_todos',
      description:
        'Write your task list for the current work (replaces the whole list). Use it for work of 3 or more steps: add the ' +
        'tasks, keep exactly one in_progress while you work on it, mark each completed as soon as it is done. The user sees the list.',
      input: z.object({
        todos: z
          .array(
            z.object({
              content: z.string().min(1).max(500).describe('What the task is, in a few words.'),
              status: z.enum(['pending', 'in_progress', 'completed']),
            }),
          )
          .max(max)
          .describe('The whole task list, in order.'),
      }),
      readOnly: true,
      concurrencySafe: false,
      execute: ({ todos }) => {
        const done = todos.filter((t) => t.status === 'completed').length;
        const current = todos.find((t) => t.status === 'in_progress');
        return `Task list updated: ${done}/${todos.length} completed${current ? `; in progress: ${current.content}` : ''}.`;
      },
    });
  }

  tools(): readonly Tool[] {
    return [this.tool];
  }

  /** The persisted task list of the agent whose context this is. */
  todos(ctx: RuntimeContext): readonly Todo[] {
    return ctx.state<{ todos: Todo[] }>(this.key).get()?.todos ?? [];
  }

  onSystemPrompt(_agent: AgentHandle, ctx: RuntimeContext, prompt: string): string {
    const todos = this.todos(ctx);
    if (!todos.length) return prompt;
    const list = todos.map((t) => `- ${MARK[t.status]} ${t.content}`).join('\n');
    const section = `## Your task list ([x] completed, [~] in progress, [ ] pending)\n${list}\nKeep it current with write_todos.`;
    return prompt ? `${prompt}\n\n${section}` : section;
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    if (input.tool !== this.tool) return next(input);
    const todos = (input.input as { todos: Todo[] }).todos.map((t) => ({ content: t.content, status: t.status }));
    return next(input).pipe(
      concatMap((e) => {
        if (e.type !== 'TOOL_RESULT_END' || e.toolCallId !== input.toolCall.id || e.status !== 'success') return of(e);
        ctx.state<{ todos: Todo[] }>(this.key).set({ todos });
        return of(e, ctx.event('CUSTOM', { name: 'todos_updated', value: { todos } }));
      }),
    );
  }
}
