import { filter, scan } from 'rxjs';
import { isEvent, type Agent } from '../../../index.js';

export function renderStory(agent: Agent, view: HTMLElement) {
  agent
    .reply('Tell me a story')
    .pipe(
      filter(isEvent('TEXT_BLOCK_DELTA')),
      scan((text, e) => text + e.delta, ''),
    )
    .subscribe({ next: (text) => (view.textContent = text), error: console.error });
}
