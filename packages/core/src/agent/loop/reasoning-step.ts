import { concat, defer, from, Observable, switchMap } from 'rxjs';
import type { AgentEvent } from '../../event/events.js';
import type { Msg } from '../../message/blocks.js';
import { createMsg, textOfMsg } from '../../message/msg.js';
import type { ReasoningInput } from '../../middleware/middleware.js';
import type { ToolChoice } from '../../model/chat-model.js';
import { callModel } from './model-call-terminal.js';
import { foldStep } from './step-fold.js';
import { doneStep, reasonStep, type StepOutput, type StepScope } from './steps.js';

/**
 * One reasoning step: the input assembled, the `onReasoning` chain run around the model call,
 * its events folded into the reply, then the next step — acting on the calls the model made,
 * a repair turn when a structured answer failed its schema, or done.
 */
export function reasoningStep(scope: StepScope, final: boolean): Observable<StepOutput> {
  const { conversation } = scope;
  scope.ctx.iteration++;
  // Messages sent since the last step join before the input is assembled (the layers see them).
  deliverSent(scope);
  const events = reasoning(scope, final);
  return foldStep(scope, events, () => {
    // Hints with `lifetime: 'step'` that a model request has seen leave the conversation.
    conversation.dropStepHints(false);
    const calls = final ? [] : conversation.reducer.unansweredCalls();
    const done = doneStep(final && scope.toolSteps > 0 ? 'max_iters' : 'completed');
    const output = scope.output;
    if (calls.length) return { kind: 'act', calls };
    // A message sent while the model answered gets one more step: the reply answers it too.
    if (!output && !final && scope.host.hasSent()) return reasonStep(false);
    if (!output) return done;
    // Structured output: the answer is checked; a repair turn is a hint and one more step.
    const verdict = output.checkAnswer(conversation.reducer.message(), final);
    if (verdict.ok) return done;
    conversation.addHint(verdict.hint, { source: 'output' });
    return reasonStep(false);
  });
}

/** The `onReasoning` chain around the model call, with the input of this step. */
function reasoning(scope: StepScope, final: boolean): Observable<AgentEvent> {
  const { host, ctx } = scope;
  const forced = host.toolChoice !== 'auto' && host.toolChoice !== 'none';
  const toolChoice: ToolChoice = final
    ? 'none'
    : forced && host.resetToolChoice && ctx.iteration > 1
      ? 'auto'
      : host.toolChoice;
  const input: ReasoningInput = {
    messages: scope.conversation.messages,
    tools: scope.toolList,
    toolChoice,
    options: host.modelOptions,
    model: host.model,
    ...(scope.output?.responseFormat ? { responseFormat: scope.output.responseFormat } : {}),
  };
  return host.reasoningChain(host.agent, ctx, input, (i) => reason(scope, i));
}

/**
 * Messages sent with `agent.send()` join the reply as hints from the user (`HINT_BLOCK
 * {hintSource: 'user'}`, emitted once, kept in the reply message, sent to the model as a user
 * turn). Returns the messages that joined.
 */
function deliverSent(scope: StepScope): readonly Msg[] {
  if (!scope.host.hasSent()) return NONE;
  const sent = scope.host.takeSent();
  for (const msg of sent) scope.conversation.addHint(textOfMsg(msg), { id: `sent:${msg.id}`, source: 'user' });
  return sent;
}

/**
 * The input with the messages sent while its layers ran: rebuilt from the conversation when it
 * carries the conversation as handed out, else (a layer passed messages of its own) with the
 * sent messages appended as user messages.
 */
function withSent(scope: StepScope, input: ReasoningInput, sent: readonly Msg[]): ReasoningInput {
  const refreshed = scope.conversation.refresh(input);
  if (refreshed !== input) return refreshed;
  return { ...input, messages: [...input.messages, ...sent.map((m) => createMsg('user', textOfMsg(m)))] };
}

const NONE: readonly Msg[] = [];

/** The innermost reasoning step: the system prompt, then the `onModelCall` chain around the model. */
function reason(scope: StepScope, given: ReasoningInput): Observable<AgentEvent> {
  const { host, ctx } = scope;
  const call = (input: ReasoningInput, prompt: string) =>
    host.modelCallChain(
      host.agent,
      ctx,
      {
        model: input.model,
        messages: prompt ? [createMsg('system', prompt, { name: 'system' }), ...input.messages] : input.messages,
        tools: input.tools.map((t) => t.schema),
        toolChoice: input.toolChoice,
        options: input.options,
        ...(input.responseFormat ? { responseFormat: input.responseFormat } : {}),
        signal: ctx.signal,
        attempt: 1,
      },
      (i) => callModel(ctx, i),
    );
  /** Messages that joined here, on an earlier subscription too (a layer that retries resubscribes). */
  let joined: readonly Msg[] = NONE;
  // A prompt that every layer transformed synchronously needs no stream (and events no switchMap).
  return defer(() => {
    // A message sent while the layers of this step ran still joins this model call (not the next one).
    const sent = deliverSent(scope);
    if (sent.length) joined = [...joined, ...sent];
    const input = joined.length ? withSent(scope, given, joined) : given;
    // Hints added by the layers of this step go out once, before the model call that includes them.
    const conversation = scope.conversation;
    const hints = conversation.takeHints();
    conversation.markStepHintsSeen();
    const prompt = host.systemPrompt(ctx);
    const model = typeof prompt === 'string' ? call(input, prompt) : prompt.pipe(switchMap((p) => call(input, p)));
    return hints.length ? concat(from(hints), model) : model;
  });
}
