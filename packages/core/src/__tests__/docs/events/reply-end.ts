import { filter, firstValueFrom } from 'rxjs';
import { isEvent, type Agent } from '../../../index.js';

export async function sayHi(agent: Agent) {
  const end = await firstValueFrom(agent.reply('hi').pipe(filter(isEvent('REPLY_END'))));
  if (end.finishReason === 'error') console.error(end.error?.message);
  return end.finishReason;
}
