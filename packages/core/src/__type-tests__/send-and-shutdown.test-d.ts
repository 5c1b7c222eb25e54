/**
 * Type tests of messages into a running reply (`agent.send`, `agent.queued`) and of graceful
 * shutdown (`agent.shutdown`, `RESUME_REPLY`, `finishReason: 'shutdown'`, `shutdownAgents`).
 */
import {
  Agent,
  type AgentInput,
  type AgentShutdownResult,
  type Msg,
  type PendingReply,
  type ReplyFinishReason,
  type ReplyInput,
  type ResumeReplyInput,
  type ShutdownResume,
  createMsg,
} from '../index.js';
import { shutdownAgents, terminationSignal, type ShutdownReport } from '../node/index.js';
import { ScriptedChatModel } from '../testing/index.js';
import { exact, type Equal, type Expect } from './helpers.test-d.js';

const agent = new Agent({ model: new ScriptedChatModel([{ text: 'hi' }]) });

// send(): text or a user message; nothing to wait for.
exact<void>()(agent.send('also check the tests'));
exact<void>()(agent.send(createMsg('user', 'and the docs')));
// @ts-expect-error -- not a message
agent.send(42);
// @ts-expect-error -- one message at a time
agent.send([createMsg('user', 'a')]);
// @ts-expect-error -- no options
agent.send('hi', { now: true });

// queued: the sent messages that wait for a reply, read-only.
exact<readonly Msg[]>()(agent.queued);
// @ts-expect-error -- read-only
agent.queued = [];
// @ts-expect-error -- a read-only array, not a mutable one
export const mutable: Msg[] = agent.queued;

// shutdown(): options optional, resolves with what happened to the running reply.
exact<Promise<AgentShutdownResult>>()(agent.shutdown());
exact<Promise<AgentShutdownResult>>()(agent.shutdown({ graceMs: 5_000, reason: 'received SIGTERM' }));
// @ts-expect-error -- graceMs is a number
void agent.shutdown({ graceMs: '5s' });
type _result = Expect<Equal<AgentShutdownResult['finishReason'], ReplyFinishReason | undefined>>;
exact<boolean>()(agent.shuttingDown);

// The shutdown end and its resume.
type _shutdownReason = Expect<Equal<Extract<ReplyFinishReason, 'shutdown'>, 'shutdown'>>;
type _resumeInput = Expect<Equal<Extract<ReplyInput, { type: 'RESUME_REPLY' }>, ResumeReplyInput>>;
void agent.reply({ type: 'RESUME_REPLY' });
void agent.reply({ type: 'RESUME_REPLY', replyId: 'reply_1' });
// @ts-expect-error -- a resume after a shutdown carries no results
void agent.reply({ type: 'RESUME_REPLY', results: [] });
type _pending = Expect<Equal<PendingReply['shutdown'], { readonly reason: string; readonly at: number } | undefined>>;
type _agentInput = Expect<Equal<Extract<AgentInput['resume'], { type: 'RESUME_REPLY' }>, ShutdownResume>>;

// shutdownAgents(): a list or a function of agents; a report of the saved sessions.
exact<Promise<ShutdownReport>>()(shutdownAgents([agent]));
exact<Promise<ShutdownReport>>()(
  shutdownAgents(() => new Set([agent]), { signal: terminationSignal(), graceMs: 1_000 }),
);
exact<readonly string[]>()(({} as ShutdownReport).suspended);
// @ts-expect-error -- agents, not session ids
void shutdownAgents(['session-1']);
