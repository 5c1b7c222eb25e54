import { filter, map, merge } from 'rxjs';
import { Agent, isEvent } from '../../../index.js';
import { ScriptedChatModel } from '../../../testing/index.js';

export function twoReplies() {
  const model = new ScriptedChatModel([{ text: 'first answer' }, { text: 'second answer' }], { delayMs: 5 });
  const agent = new Agent({ model });

  merge(agent.reply('one'), agent.reply('two'))
    .pipe(
      filter(isEvent('REPLY_START', 'REPLY_END', 'TEXT_BLOCK_DELTA')),
      map((e) => (e.type === 'TEXT_BLOCK_DELTA' ? e.delta : e.type)),
    )
    .subscribe(console.log);
  // REPLY_START, first answer, REPLY_END, REPLY_START, second answer, REPLY_END
}
