import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { DevtoolsStore } from '../feed/devtools-store';

/** Picks a cassette file and replays it on the server; the replayed reply opens in the view. */
@Component({
  selector: 'dt-replay-upload',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <label class="button">
      {{ busy() ? 'Replaying…' : 'Replay a cassette…' }}
      <input
        type="file"
        accept=".json,application/json"
        aria-label="Replay a cassette file"
        [disabled]="busy()"
        (change)="pick($event)"
      />
    </label>
  `,
  styles: `
    input {
      position: absolute;
      width: 1px;
      height: 1px;
      opacity: 0;
    }
    label:focus-within {
      outline: 2px solid var(--accent);
    }
  `,
})
export class ReplayUpload {
  private readonly store = inject(DevtoolsStore);
  protected readonly busy = signal(false);

  protected async pick(event: Event): Promise<void> {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    if (!file) return;
    this.busy.set(true);
    try {
      await this.store.replay(await file.text());
    } finally {
      this.busy.set(false);
      input.value = '';
    }
  }
}
