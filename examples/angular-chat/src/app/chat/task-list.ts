import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import type { TodoView } from './turn';

const MARKS: Record<TodoView['status'], string> = { pending: '○', in_progress: '◐', completed: '✓' };

/** The agent's task list (`write_todos`), with how much of it is done; it updates as the agent ticks tasks off. */
@Component({
  selector: 'chat-task-list',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <header class="title">
      Tasks <span class="count">{{ done() }}/{{ todos().length }}</span>
    </header>
    <ol>
      @for (todo of todos(); track $index) {
        <li class="todo" [attr.data-status]="todo.status">
          <span class="mark" aria-hidden="true">{{ marks[todo.status] }}</span>{{ todo.content }}
        </li>
      }
    </ol>
  `,
  host: { role: 'status', 'aria-label': 'Task list' },
  styles: `
    :host {
      display: block;
      margin: 0.2rem 0 0.4rem;
      padding: 0.4rem 0.6rem;
      border: 1px solid var(--line);
      border-radius: 8px;
      font-size: 0.875rem;
    }
    .title {
      font-weight: 600;
    }
    .count {
      color: var(--muted);
      font-weight: 400;
    }
    ol {
      margin: 0.25rem 0 0;
      padding: 0;
      list-style: none;
    }
    .mark {
      display: inline-block;
      width: 1.2rem;
    }
    .todo[data-status='completed'] {
      color: var(--muted);
      text-decoration: line-through;
    }
    .todo[data-status='in_progress'] {
      font-weight: 600;
    }
  `,
})
export class TaskList {
  readonly todos = input.required<readonly TodoView[]>();
  protected readonly marks = MARKS;
  protected readonly done = computed(() => this.todos().filter((t) => t.status === 'completed').length);
}
