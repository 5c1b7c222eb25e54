import type {
  ConfirmResult,
  ExternalExecutionResultEvent,
  ExternalResult,
  UserConfirmResultEvent,
} from '../../event/events.js';
import type { PendingReply } from '../../state/snapshot.js';
import type { Tool } from '../../tool/tool.js';
import { validateToolInput } from '../../tool/validate.js';
import { jsonSchemaInput } from '../../tool/json-schema-input.js';
import { issuePath, validateWithSchema } from '../../tool/standard-schema.js';
import type { ToolQuestionRequest } from '../../tool/tool-question.js';
import type { ResumeInput, ResumeReplyInput } from '../agent-options.js';
import { AgentUsageError } from '../errors.js';
import type { ResumeRequest } from './loop-host.js';
import type { StructuredOutput } from '../structured-output.js';

/**
 * Checks a resume against the suspended reply before anything changes: it must be for that
 * reply, of the kind it waits for, and answer every pending call exactly once; an edited input
 * of a confirmed call must pass the tool's schema (and is replaced by the parsed value).
 * Throws an {@link AgentUsageError} that says what is wrong.
 */
export function validateResume(
  event: ResumeInput<UserConfirmResultEvent> | ResumeInput<ExternalExecutionResultEvent>,
  pending: PendingReply | undefined,
  agentName: string,
  tools: ReadonlyMap<string, Tool>,
): ResumeRequest {
  const refuse = (why: string): never => {
    throw new AgentUsageError(`Cannot resume with ${event.type}: ${why}`);
  };
  if (!pending) return refuse(`agent "${agentName}" has no suspended reply; send a user message instead.`);
  if (event.replyId !== undefined && event.replyId !== pending.replyId) {
    refuse(`it is for reply ${event.replyId}, but the suspended reply is ${pending.replyId}.`);
  }
  if (pending.shutdown)
    refuse(`reply ${pending.replyId} was suspended by a shutdown; continue it with { type: 'RESUME_REPLY' }.`);
  const expected = event.type === 'USER_CONFIRM_RESULT' ? pending.confirm : pending.external;
  if (!expected.length) {
    refuse(
      `reply ${pending.replyId} is waiting for ${event.type === 'USER_CONFIRM_RESULT' ? 'EXTERNAL_EXECUTION_RESULT' : 'USER_CONFIRM_RESULT'}.`,
    );
  }
  const results = Array.isArray(event.results)
    ? (event.results as readonly (ConfirmResult | ExternalResult)[])
    : refuse('results must be an array.');
  const ids = new Set(expected.map((c) => c.id));
  const seen = new Set<string>();
  for (const r of results) {
    if (!ids.has(r.toolCallId)) refuse(`unknown tool call id "${r.toolCallId}"; pending: ${[...ids].join(', ')}.`);
    if (seen.has(r.toolCallId)) refuse(`tool call ${r.toolCallId} is answered twice.`);
    seen.add(r.toolCallId);
  }
  const missing = [...ids].filter((id) => !seen.has(id));
  if (missing.length) refuse(`every pending call must be answered; missing: ${missing.join(', ')}.`);
  if (event.type === 'USER_CONFIRM_RESULT') {
    const normalized = (results as readonly ConfirmResult[]).map((r) => {
      if (typeof r.confirmed !== 'boolean') refuse(`result for ${r.toolCallId} needs "confirmed": true or false.`);
      const call = expected.find((c) => c.id === r.toolCallId)!;
      if (call.question) return checkAnswer(r, call.name, call.question, refuse);
      if (!r.confirmed || r.input === undefined) return r;
      const tool = tools.get(call.name);
      if (!tool) return refuse(`tool "${call.name}" is no longer registered.`);
      const checked = validateToolInput(tool, r.input);
      // The facts only: the instructions in `checked.message` are for the model, this is read by whoever edited the input.
      if (!checked.ok)
        refuse(
          `the edited input of ${r.toolCallId} (${call.name}) is invalid: ${checked.issues.join('; ')}. Correct it and confirm again, or reject the call.`,
        );
      return { ...r, input: checked.ok ? checked.input : r.input };
    });
    return { pending, event: { ...(event as UserConfirmResultEvent), results: normalized } };
  }
  for (const r of results as readonly ExternalResult[]) {
    if (typeof r.output !== 'string' && !Array.isArray(r.output))
      refuse(`result for ${r.toolCallId} needs an "output" (string or content blocks).`);
  }
  return { pending, event: event as ExternalExecutionResultEvent };
}

/**
 * An answer to a running tool's question: accepted with an `input` that passes the question's
 * schema (replaced by the parsed value), declined, or cancelled. Refuses naming each bad field.
 */
function checkAnswer(
  r: ConfirmResult,
  toolName: string,
  question: ToolQuestionRequest,
  refuse: (why: string) => never,
): ConfirmResult {
  if (!r.confirmed || r.cancelled) return { ...r, confirmed: false };
  if (!question.schema) return r;
  const checked = validateWithSchema(jsonSchemaInput(question.schema), r.input ?? {});
  if (checked.ok) return { ...r, input: checked.value };
  const issues = checked.issues.map((i) => `${issuePath(i) || 'the answer'}: ${i.message}`);
  return refuse(
    `the answer to ${r.toolCallId} (${toolName}: "${question.message}") is invalid: ${issues.join('; ')}. ` +
      'Correct it and answer again, or decline.',
  );
}

/**
 * Checks a `RESUME_REPLY` against the suspended reply: there must be one, suspended by a
 * shutdown (a reply waiting for a person or an executor needs their answer instead).
 */
export function validateShutdownResume(
  input: ResumeReplyInput,
  pending: PendingReply | undefined,
  agentName: string,
): ResumeRequest {
  const refuse = (why: string): never => {
    throw new AgentUsageError(`Cannot resume with RESUME_REPLY: ${why}`);
  };
  if (!pending) return refuse(`agent "${agentName}" has no suspended reply; send a user message instead.`);
  if (input.replyId !== undefined && input.replyId !== pending.replyId) {
    refuse(`it is for reply ${input.replyId}, but the suspended reply is ${pending.replyId}.`);
  }
  if (!pending.shutdown) {
    const waitsFor = pending.confirm.length ? 'USER_CONFIRM_RESULT' : 'EXTERNAL_EXECUTION_RESULT';
    refuse(`reply ${pending.replyId} waits for ${waitsFor}, not for a resume after a shutdown.`);
  }
  return { pending, event: { type: 'RESUME_REPLY', replyId: pending.replyId } };
}

/**
 * A suspended reply asked for a structured output keeps asking for it when it resumes: the
 * resume must pass the same schema as `{output}` (a zod schema cannot be stored, its JSON
 * schema is), and a reply started without one cannot be given one on resume. Nothing changes
 * before this check.
 */
export function resumeOutput(pending: PendingReply, output: StructuredOutput | undefined): void {
  if (pending.output && !output) {
    throw new AgentUsageError(
      `Cannot resume reply ${pending.replyId} without its output schema: it was started with reply(input, {output}), and a ` +
        'zod schema is not part of the saved state. Resume with the same schema: reply(resume, { output: schema }).',
    );
  }
  if (!output) return;
  if (!pending.output) {
    throw new AgentUsageError(
      `Cannot resume reply ${pending.replyId} with an output schema: it was started without one; resume it without {output}.`,
    );
  }
  output.resume(pending.output, pending.replyId);
}
