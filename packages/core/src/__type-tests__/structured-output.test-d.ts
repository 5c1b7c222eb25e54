/**
 * Type tests of structured output: `call(input, {output})` resolves with the schema's output
 * type (defaults applied, transforms run), `call()` without `output` stays `Promise<Msg>`, and
 * `REPLY_END.output` is `unknown` (the stream does not know the schema).
 */
import type { Observable } from 'rxjs';
import { z } from 'zod';
import { Agent, type AgentEvent, type Msg, type ReplyOptions } from '../index.js';
import { ScriptedChatModel } from '../testing/index.js';
import { exact, type Equal, type Expect } from './helpers.test-d.js';

const agent = new Agent({ model: new ScriptedChatModel([]) });
const Weather = z.object({ city: z.string(), tempC: z.number(), unit: z.enum(['C', 'F']).default('C') });

exact<Promise<{ city: string; tempC: number; unit: 'C' | 'F' }>>()(agent.call('Paris?', { output: Weather }));
exact<Promise<string[]>>()(agent.call('list', { output: z.array(z.string()) }));
exact<Promise<number>>()(agent.call('n', { output: z.string().transform((s) => s.length) }));
exact<Promise<Msg>>()(agent.call('hi'));
exact<Promise<Msg>>()(agent.call('hi', {}));
exact<Promise<Msg>>()(agent.call('hi', { outputRepairs: 3 }));
exact<Observable<AgentEvent>>()(agent.reply('hi', { output: Weather, outputRepairs: 1 }));

export async function usesTheValue(): Promise<string> {
  const w = await agent.call('Paris?', { output: Weather });
  // @ts-expect-error -- not a field of the schema
  void w.humidity;
  return w.city;
}

// The event carries the parsed value untyped.
declare const _end: Extract<AgentEvent, { type: 'REPLY_END' }>;
export type _Output = Expect<Equal<typeof _end.output, unknown>>;

// @ts-expect-error -- output must be a zod schema
void agent.call('x', { output: { type: 'object' } });

export const options: ReplyOptions<typeof Weather> = { output: Weather };
