import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { NgTemplateOutlet } from '@angular/common';
import { DevtoolsStore } from '../feed/devtools-store';

/** The sessions and their replies, newest first, each subagent reply nested under its parent. */
@Component({
  selector: 'dt-reply-list',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [NgTemplateOutlet],
  template: `
    <nav aria-label="Replies">
      @for (group of store.sessions(); track group.sessionId) {
        <section class="session">
          <h2>{{ group.sessionId ? 'Session ' + group.sessionId : 'Without a session' }}</h2>
          <ul>
            @for (node of group.replies; track node.summary.replyId) {
              <ng-container *ngTemplateOutlet="item; context: { $implicit: node }" />
            }
          </ul>
        </section>
      } @empty {
        <p class="empty">No replies recorded yet.</p>
      }
    </nav>
    <ng-template #item let-node>
      <li [attr.data-reply-id]="node.summary.replyId" [attr.data-depth]="node.depth">
        <button
          type="button"
          [attr.aria-current]="store.selectedId() === node.summary.replyId ? 'true' : null"
          (click)="store.select(node.summary.replyId)"
        >
          <span class="agent">{{ node.summary.agentName }}</span>
          <span class="status" [attr.data-status]="node.summary.status">{{ node.summary.status }}</span>
          <span class="meta">{{ node.summary.eventCount }} events · {{ node.summary.toolCalls }} tools</span>
        </button>
        @if (node.children.length) {
          <ul class="children" [attr.aria-label]="'Subagents of ' + node.summary.agentName">
            @for (child of node.children; track child.summary.replyId) {
              <ng-container *ngTemplateOutlet="item; context: { $implicit: child }" />
            }
          </ul>
        }
      </li>
    </ng-template>
  `,
  styles: `
    :host {
      display: block;
      border-right: 1px solid var(--line);
      background: var(--panel);
      overflow: auto;
      padding: 0 0.6rem;
    }
    ul {
      list-style: none;
      margin: 0;
      padding: 0;
    }
    .children {
      padding-left: 1rem;
      border-left: 2px solid var(--subagent);
    }
    button {
      display: grid;
      grid-template-columns: 1fr auto;
      width: 100%;
      margin: 0.2rem 0;
      text-align: left;
    }
    button[aria-current='true'] {
      border-color: var(--accent);
      background: #eef2ff;
    }
    .meta {
      grid-column: 1 / 3;
      color: var(--muted);
      font-size: 12px;
    }
    .status[data-status='failed'] {
      color: var(--err);
    }
    .status[data-status='completed'] {
      color: var(--ok);
    }
    .status[data-status='awaiting_confirmation'] {
      color: var(--warn);
    }
    h2 {
      font-size: 12px;
      color: var(--muted);
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .empty {
      color: var(--muted);
    }
  `,
})
export class ReplyList {
  protected readonly store = inject(DevtoolsStore);
}
