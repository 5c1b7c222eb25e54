// The operators' old names (docs/public-api.md, "One vocabulary") keep working for one minor
// version, from the root entry, exactly as the new ones.
import { from, lastValueFrom, toArray } from 'rxjs';
import { Agent, textOf, textOfMsg, toMessage, toMsg, toText, type AgentEvent, type TextOfOptions } from '../index.js';
import { ScriptedChatModel } from '../testing/index.js';

describe('renamed stream operators', () => {
  let events: AgentEvent[];
  beforeAll(async () => {
    const agent = new Agent({ name: 'assistant', model: new ScriptedChatModel([{ text: ['Hel', 'lo ', 'there.'] }]) });
    events = await lastValueFrom(agent.reply('hi').pipe(toArray()));
  });

  it('toMsg() folds the reply into its Msg; the deprecated toMessage() gives the same', async () => {
    const msg = await lastValueFrom(from(events).pipe(toMsg()));
    expect(textOfMsg(msg)).toBe('Hello there.');
    expect(await lastValueFrom(from(events).pipe(toMessage()))).toEqual(msg);
  });

  it('toText() follows the text as it grows; the deprecated textOf() gives the same', async () => {
    const texts = await lastValueFrom(from(events).pipe(toText(), toArray()));
    expect(texts).toEqual(['Hel', 'Hello ', 'Hello there.']);
    const options: TextOfOptions = { source: 'assistant' };
    expect(await lastValueFrom(from(events).pipe(textOf(options), toArray()))).toEqual(texts);
    expect(await lastValueFrom(from(events).pipe(toText({ source: 'someone-else' }), toArray()))).toEqual([]);
  });
});
