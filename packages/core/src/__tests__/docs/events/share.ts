import { filter, share } from 'rxjs';
import { isEvent, type Agent, type AgentEventOf } from '../../../index.js';

export function oneReplyTwoViews(
  agent: Agent,
  renderDelta: (e: AgentEventOf<'TEXT_BLOCK_DELTA'>) => void,
  showDone: (e: AgentEventOf<'REPLY_END'>) => void,
) {
  const reply$ = agent.reply('go').pipe(share());
  reply$.pipe(filter(isEvent('TEXT_BLOCK_DELTA'))).subscribe({ next: renderDelta, error: console.error });
  reply$.pipe(filter(isEvent('REPLY_END'))).subscribe({ next: showDone, error: console.error });
  // one model request, both consumers see the same events
}
