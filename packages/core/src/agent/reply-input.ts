import type { AgentEvent } from '../event/events.js';
import type { Msg } from '../message/blocks.js';
import { createMsg } from '../message/msg.js';
import type { Tool } from '../tool/tool.js';
import type { ReplyInput } from './agent-options.js';
import type { ResumeRequest } from './loop-host.js';
import { closePendingReply, type WhilePending } from './pending-reply-policy.js';
import type { ReplyContext } from './reply-context.js';
import { validateResume, validateShutdownResume } from './resume-validation.js';
import type { SessionState } from './session-state.js';

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
  if (typeof input === 'object' && !Array.isArray(input) && 'type' in input) {
    const resume = input;
    if (resume.type === 'USER_CONFIRM_RESULT' || resume.type === 'EXTERNAL_EXECUTION_RESULT') {
      return { messages: [], resume: validateResume(resume, state.pending, host.name, host.tools) };
    }
    if (resume.type === 'RESUME_REPLY')
      return { messages: [], resume: validateShutdownResume(resume, state.pending, host.name) };
  }
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
