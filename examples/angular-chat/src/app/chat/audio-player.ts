import { ChangeDetectionStrategy, Component, computed, effect, input } from '@angular/core';
import { audioBlobOf } from './audio';
import type { AudioPart } from './turn';

/** The spoken reply: an audio element fed from the reply's audio data blocks once a block is complete. */
@Component({
  selector: 'chat-audio',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @if (url(); as src) {
      <audio controls preload="metadata" [src]="src" aria-label="Spoken reply"></audio>
    } @else if (part().done) {
      <span class="unsupported">audio ({{ part().mediaType }}) the page cannot play</span>
    } @else {
      <span class="speaking">speaking…</span>
    }
  `,
  host: { class: 'audio', '[attr.data-block-id]': 'part().blockId' },
  styles: `
    :host {
      display: block;
      margin: 0.3rem 0;
    }
    audio {
      width: 100%;
      max-width: 22rem;
      height: 2rem;
    }
    .speaking,
    .unsupported {
      color: var(--muted);
      font-size: 0.8rem;
    }
  `,
})
export class AudioPlayer {
  readonly part = input.required<AudioPart>();
  /** An object URL of the finished audio; revoked when it changes or the view goes away. */
  protected readonly url = computed(() => {
    const part = this.part();
    const blob = part.done ? audioBlobOf(part) : undefined;
    return blob ? URL.createObjectURL(blob) : undefined;
  });

  constructor() {
    effect((onCleanup) => {
      const url = this.url();
      if (url) onCleanup(() => URL.revokeObjectURL(url));
    });
  }
}
