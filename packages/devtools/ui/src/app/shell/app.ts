import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { DevtoolsStore } from '../feed/devtools-store';
import { ReplayUpload } from './replay-upload';
import { ReplyList } from './reply-list';
import { ReplyView } from '../details/reply-view';

/** The devtools page: the notices, the list of sessions and replies, and the open reply. */
@Component({
  selector: 'dt-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ReplayUpload, ReplyList, ReplyView],
  template: `
    <header>
      <h1>rxscope devtools</h1>
      <dt-replay-upload />
    </header>
    @if (store.connection() === 'reconnecting') {
      <p class="banner" role="status" data-notice="reconnecting">Connection to the server lost: reconnecting…</p>
    }
    @if (store.restarted()) {
      <p class="banner restarted" role="status" data-notice="restarted">
        The server restarted: replies recorded before it are gone, the list was reloaded.
        <button type="button" (click)="store.dismissRestart()">Dismiss</button>
      </p>
    }
    @if (store.error(); as error) {
      <p class="banner error" role="alert">{{ error }}</p>
    }
    <div class="columns">
      <dt-reply-list />
      <dt-reply-view />
    </div>
  `,
  styles: `
    :host {
      display: block;
    }
    header {
      display: flex;
      align-items: center;
      justify-content: space-between;
      padding: 0.6rem 1rem;
      border-bottom: 1px solid var(--line);
      background: var(--panel);
    }
    h1 {
      font-size: 1.1rem;
      margin: 0;
    }
    .banner {
      margin: 0;
      padding: 0.5rem 1rem;
      background: #fff4d6;
      border-bottom: 1px solid #f0d68a;
    }
    .banner.restarted {
      background: #e6efff;
      border-color: #b9cdf5;
    }
    .banner.error {
      background: #fde8e7;
      border-color: #f2b8b5;
    }
    .columns {
      display: grid;
      grid-template-columns: 300px minmax(0, 1fr);
      min-height: calc(100vh - 50px);
    }
  `,
})
export class App {
  protected readonly store = inject(DevtoolsStore);
}
