import type { AgentEvent } from '../../event/events.js';
import type { Msg } from '../../message/blocks.js';
import { createMsg } from '../../message/msg.js';
import type { Tool } from '../../tool/tool.js';
import type { ReplyInput } from '../agent-options.js';
import type { ResumeRequest } from './loop-host.js';
import { closePendingReply, type WhilePending } from './pending-reply-policy.js';
import type { ReplyContext } from './reply-context.js';
import { validateResume, validateShutdownResume } from './resume-validation.js';
import { AgentUsageError, InvalidReplyInputError } from '../errors.js';
import type { SessionState } from '../session-state.js';

/** A reply's input, prepared: new messages, or a validated resume of the suspended reply. */
export interface PreparedInput {
  readonly messages: Msg[];
  readonly resume?: ResumeRequest;
  /** The `CUSTOM` `pending_calls_rejected` notice, when the input closed a suspended reply. */
  readonly rejected?: (ctx: ReplyContext) => AgentEvent;
}

/** What preparing an input needs of its agent. */
export interface InputHost {
  readonly name: string;
  readonly sessionId: string;
  readonly state: SessionState;
  readonly whilePending: WhilePending;
  readonly tools: ReadonlyMap<string, Tool>;
}

/**
 * Turns the input into new messages or a validated resume. Refusals throw before anything
 * changes; a plain message while a reply waits answers the pending calls first (policy
 * `reject-pending`), noted in the new reply by a `CUSTOM` `pending_calls_rejected` event.
 */
export function prepareReplyInput(input: ReplyInput, host: InputHost): PreparedInput {
  const { state } = host;
  if (typeof input === 'object' && input !== null && !Array.isArray(input) && 'type' in input) {
    const resume = input;
    if (resume.type === 'USER_CONFIRM_RESULT' || resume.type === 'EXTERNAL_EXECUTION_RESULT') {
      return { messages: [], resume: validateResume(resume, state.pending, host.name, host.tools) };
    }
    if (resume.type === 'RESUME_REPLY')
      return { messages: [], resume: validateShutdownResume(resume, state.pending, host.name) };
    if (resume.type === 'RECOVER_REPLY') {
      throw new AgentUsageError(
        `Agent "${host.name}" cannot recover a reply: RECOVER_REPLY needs a session store that keeps a journal ` +
          '(InMemorySessionStore, FileSessionStore, RedisSessionStore) and checkpoints on (the default).',
      );
    }
  }
  checkMessages(input);
  const messages =
    typeof input === 'string'
      ? [createMsg('user', input)]
      : Array.isArray(input)
        ? [...(input as readonly Msg[])]
        : [input as Msg];
  const pending = state.pending;
  if (!pending) return { messages };
  const closed = closePendingReply(pending, host.whilePending, host.name, host.sessionId);
  state.append([closed.message]);
  state.pending = undefined;
  return { messages, rejected: closed.notice };
}

const isMsg = (x: unknown): boolean =>
  typeof x === 'object' && x !== null && typeof (x as Msg).role === 'string' && Array.isArray((x as Msg).content);

/**
 * Refuses an input that is none of the accepted shapes (a body passed straight from a request:
 * `false`, `{}`, `{type: 'SOMETHING_ELSE'}`), before it could become a message of the conversation.
 */
function checkMessages(input: unknown): void {
  if (typeof input === 'string') return;
  if (Array.isArray(input) ? input.every(isMsg) : isMsg(input)) return;
  const got =
    input === null
      ? 'null'
      : Array.isArray(input)
        ? 'an array that is not all messages'
        : typeof input === 'object'
          ? `an object with keys ${JSON.stringify(Object.keys(input).slice(0, 5))}`
          : `${typeof input} ${JSON.stringify(input)}`;
  throw new InvalidReplyInputError(
    `Invalid reply input: expected a string, a message ({role, content: [...]}), an array of messages, or a resume event ` +
      `(USER_CONFIRM_RESULT, EXTERNAL_EXECUTION_RESULT, RESUME_REPLY); got ${got}.`,
  );
}
