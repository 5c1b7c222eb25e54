/**
 * Type tests of the Agent surface (docs/getting-started.md): `reply`, `call`, `interrupt`, `saveState`, and
 * what `ReplyInput` accepts.
 */
import type { Observable } from 'rxjs';
import {
  Agent,
  type AgentEvent,
  type AgentOptions,
  type AgentStateSnapshot,
  type Msg,
  type ReplyInput,
  createMsg,
} from '../index.js';
import { ScriptedChatModel } from '../testing/index.js';
import { exact, type Equal, type Expect } from './helpers.test-d.js';

const agent = new Agent({
  name: 'assistant',
  sysPrompt: 'You are helpful.',
  model: new ScriptedChatModel([{ text: 'hi' }]),
});

exact<Observable<AgentEvent>>()(agent.reply('hi'));
exact<Observable<AgentEvent>>()(agent.reply(createMsg('user', 'hi')));
exact<Observable<AgentEvent>>()(agent.reply([createMsg('user', 'a'), createMsg('user', 'b')]));
exact<Promise<Msg>>()(agent.call('hi'));
exact<void>()(agent.interrupt());
exact<void>()(agent.interrupt('stop'));
exact<AgentStateSnapshot>()(agent.saveState());
exact<readonly Msg[]>()(agent.context);

// @ts-expect-error -- not a reply input
void agent.reply(42);
// @ts-expect-error -- not a reply input
void agent.reply({ text: 'hi' });
// @ts-expect-error -- `model` is required
export const noModel = new Agent({ name: 'x' });
// @ts-expect-error -- maxIters is a number
export const badIters = new Agent({ model: new ScriptedChatModel([]), maxIters: '3' });
// @ts-expect-error -- not a tool choice
export const badChoice = new Agent({ model: new ScriptedChatModel([]), toolChoice: 'any' });
export const namedChoice = new Agent({ model: new ScriptedChatModel([]), toolChoice: { name: 'add' } });
// Restoring accepts any parsed JSON; the constructor validates it.
export const restored = new Agent({
  model: new ScriptedChatModel([]),
  state: JSON.parse(JSON.stringify(agent.saveState())) as unknown,
});

type _state = Expect<Equal<AgentOptions['state'], unknown>>;
type _replyInput = Expect<Equal<Extract<ReplyInput, string>, string>>;

// The snapshot round-trips through JSON as plain data.
const snapshot = agent.saveState();
exact<number>()(snapshot.version);
exact<readonly Msg[]>()(snapshot.context);
// @ts-expect-error -- the snapshot is read-only
snapshot.context = [];
