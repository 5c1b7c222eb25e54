import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { DecimalPipe } from '@angular/common';
import { DevtoolsStore } from '../feed/devtools-store';
import { TimelineView } from '../timeline/timeline-view';
import { ChainView } from './chain-view';
import { ConfirmationTable } from './confirmation-table';
import { ToolCallTable } from './tool-call-table';
import { UsageTable } from './usage-table';

/** The open reply: its summary, export, timeline, tool calls, confirmations, usage and middleware chain. */
@Component({
  selector: 'dt-reply-view',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TimelineView, ToolCallTable, ConfirmationTable, UsageTable, ChainView, DecimalPipe],
  template: `
    @if (store.record(); as record) {
      <article [attr.data-reply-id]="record.summary.replyId" [attr.data-status]="record.summary.status">
        <header>
          <h2>
            {{ record.summary.agentName }} <small>{{ record.summary.replyId }}</small>
          </h2>
          <p class="meta">
            <span class="status">{{ record.summary.status }}</span>
            @if (record.summary.finishReason && record.summary.finishReason !== record.summary.status) {
              ({{ record.summary.finishReason }})
            }
            · {{ record.summary.eventCount }} events
            @if (duration() !== undefined) {
              · {{ duration() | number: '1.0-1' }} ms
            }
            @if (record.summary.flagged) {
              · <span class="flagged">{{ record.summary.flagged }} flagged</span>
            }
            @if (record.summary.parentReplyId; as parent) {
              · subagent of <button type="button" class="link" (click)="store.select(parent)">{{ parent }}</button>
            }
          </p>
          <a
            class="button"
            [href]="exportUrl()"
            download
            [attr.aria-label]="'Export reply ' + record.summary.replyId + ' as JSON'"
            >Export JSON</a
          >
        </header>
        <h2 id="timeline">Timeline</h2>
        <dt-timeline [record]="record" [children]="store.children()" />
        <h2>Tool calls</h2>
        <dt-tool-call-table [record]="record" />
        <h2>Confirmations</h2>
        <dt-confirmation-table [record]="record" />
        <h2>Usage and cost</h2>
        <dt-usage-table [record]="record" />
        <h2>Middleware chain</h2>
        <dt-chain-view [record]="record" />
      </article>
    } @else if (store.selectedId()) {
      <p class="empty">Loading…</p>
    } @else {
      <p class="empty">Pick a reply on the left, or replay a cassette.</p>
    }
  `,
  styles: `
    :host {
      display: block;
      padding: 0 1rem 2rem;
      min-width: 0;
    }
    header {
      display: grid;
      grid-template-columns: 1fr auto;
      align-items: center;
    }
    header h2,
    header p {
      grid-column: 1;
      margin: 0.6rem 0 0.2rem;
    }
    header a {
      grid-column: 2;
      grid-row: 1 / 3;
    }
    small,
    .meta {
      color: var(--muted);
      font-weight: normal;
    }
    .flagged {
      color: var(--err);
    }
    .link {
      border: none;
      padding: 0;
      color: var(--accent);
      text-decoration: underline;
    }
    .empty {
      color: var(--muted);
      margin-top: 2rem;
    }
  `,
})
export class ReplyView {
  protected readonly store = inject(DevtoolsStore);
  protected readonly exportUrl = computed(() => {
    const id = this.store.record()?.summary.replyId ?? '';
    return `api/replies/${encodeURIComponent(id)}/export`;
  });
  protected readonly duration = computed(() => {
    const s = this.store.record()?.summary;
    return s?.endedAt === undefined ? undefined : s.endedAt - s.startedAt;
  });
}
