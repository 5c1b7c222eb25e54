import { lastValueFrom } from 'rxjs';
import { toMsg, textOfMsg, toolResultsOf, type Agent } from '../../../index.js';

export async function finalMessage(agent: Agent) {
  const msg = await lastValueFrom(agent.reply('go').pipe(toMsg()));
  return {
    text: textOfMsg(msg), // 'Both done.'
    results: toolResultsOf(msg), // the results, in call order
  };
}
