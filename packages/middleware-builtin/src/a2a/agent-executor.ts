import type { Subscription } from 'rxjs';
import type { Agent, AgentEvent, PendingToolCall, ReplyEndEvent, ReplyInput } from '@rxscope/core';
import { type Part, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent as A2aEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { a2aMessage, dataPart, rawPart, textOfParts, textPart } from './a2a-parts.js';
import { confirmationAnswer } from './confirmation-answer.js';

/** How long a cancelled reply may take to end on its own before it is cut off. */
const CANCEL_GRACE_MS = 5000;

/** Where the executor gets the agent of a context, held while a reply of it runs. */
export interface ExecutorAgents {
  acquire(contextId: string): Promise<Agent>;
  release(contextId: string): void;
}

interface Run {
  readonly agent: Agent;
  readonly subscription: Subscription;
  readonly done: Promise<void>;
}

/**
 * The A2A executor of an rxscope agent: each message runs one reply of the context's agent and
 * publishes it as task events (text and media as artifacts, tool calls as `working` status
 * updates, a confirmation as `input-required`, the end as a final status with the usage).
 */
export class RxscopeAgentExecutor implements AgentExecutor {
  private readonly runs = new Map<string, Run>();
  /** Tasks stopped for a confirmation: the calls the client's next message answers. */
  private readonly waiting = new Map<
    string,
    { readonly calls: readonly PendingToolCall[]; readonly contextId: string }
  >();

  constructor(private readonly agents: ExecutorAgents) {}

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = request;
    const ids = { taskId, contextId };
    const status = (state: TaskState, message?: ReturnType<typeof a2aMessage>, metadata?: Record<string, unknown>) =>
      bus.publish(
        A2aEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message, timestamp: new Date().toISOString() },
          metadata,
        }),
      );
    // Every stream starts with the task (a new one, or the one this message goes on with).
    bus.publish(
      A2aEvent.task(
        request.task ?? {
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [request.userMessage],
          metadata: undefined,
        },
      ),
    );
    const pending = this.waiting.get(taskId)?.calls;
    this.waiting.delete(taskId);
    const input: ReplyInput = pending
      ? { type: 'USER_CONFIRM_RESULT', results: confirmationAnswer(request.userMessage, pending) }
      : textOfParts(request.userMessage.parts);
    if (input === '') {
      status(TaskState.TASK_STATE_REJECTED, a2aMessage('agent', [textPart('The message has no text or data.')], ids));
      bus.finished();
      return;
    }
    let agent: Agent;
    try {
      agent = await this.agents.acquire(contextId);
    } catch (e) {
      this.agents.release(contextId);
      status(
        TaskState.TASK_STATE_FAILED,
        a2aMessage('agent', [textPart(`No agent for this context: ${String(e)}`)], ids),
      );
      bus.finished();
      return;
    }
    status(TaskState.TASK_STATE_WORKING);
    const mapper = new ReplyToTask(agent.name, taskId, contextId, bus);
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const subscription = agent.reply(input).subscribe({
      next: (e) => {
        mapper.event(e);
        if (e.type === 'REQUIRE_USER_CONFIRM' && e.source === agent.name)
          this.waiting.set(taskId, { calls: e.toolCalls, contextId });
      },
      error: (e: unknown) => {
        status(TaskState.TASK_STATE_FAILED, a2aMessage('agent', [textPart(`The agent failed: ${String(e)}`)], ids));
        finish();
      },
      complete: finish,
    });
    this.runs.set(taskId, { agent, subscription, done });
    await done;
    this.runs.delete(taskId);
    this.agents.release(contextId);
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const run = this.runs.get(taskId);
    const contextId = this.waiting.get(taskId)?.contextId ?? '';
    this.waiting.delete(taskId);
    if (!run) {
      // Not running here (waiting for input, or already over): cancelled as it stands.
      bus.publish(
        A2aEvent.statusUpdate({
          taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
      bus.finished();
      return;
    }
    // The reply ends with REPLY_END interrupted (published as `canceled`); its model request is aborted.
    run.agent.interrupt('cancelled by the A2A client');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = await Promise.race([
      run.done.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), CANCEL_GRACE_MS))),
    ]);
    clearTimeout(timer);
    if (!ended) run.subscription.unsubscribe();
  }
}

/** Publishes one reply's events as the task's events. */
class ReplyToTask {
  private readonly media = new Map<string, { mediaType: string; base64: string }>();
  private readonly started = new Set<string>();
  private finalText = '';
  /** The calls a confirmation waits for: the question of `input-required`. */
  private pending: readonly PendingToolCall[] = [];

  constructor(
    private readonly agentName: string,
    private readonly taskId: string,
    private readonly contextId: string,
    private readonly bus: ExecutionEventBus,
  ) {}

  event(e: AgentEvent): void {
    if (e.source !== this.agentName) return; // events of nested agents are theirs
    switch (e.type) {
      case 'MODEL_CALL_START':
        this.finalText = '';
        return;
      case 'TEXT_BLOCK_DELTA': {
        this.finalText += e.delta;
        const first = !this.started.has(e.blockId);
        this.started.add(e.blockId);
        return this.artifact(`text-${e.blockId}`, 'text', [textPart(e.delta)], !first);
      }
      case 'DATA_BLOCK_START':
        this.media.set(e.blockId, { mediaType: e.mediaType, base64: '' });
        return;
      case 'DATA_BLOCK_DELTA': {
        const m = this.media.get(e.blockId);
        if (m) m.base64 += e.delta;
        return;
      }
      case 'DATA_BLOCK_END': {
        const m = this.media.get(e.blockId);
        this.media.delete(e.blockId);
        if (m)
          this.artifact(`data-${e.blockId}`, 'data', [rawPart(Buffer.from(m.base64, 'base64'), m.mediaType)], false);
        return;
      }
      case 'TOOL_CALL_START':
        return this.status(TaskState.TASK_STATE_WORKING, [textPart(`Calling ${e.name}`)], {
          rxscope: { event: 'tool_call', tool: e.name, toolCallId: e.toolCallId },
        });
      case 'REQUIRE_USER_CONFIRM':
        this.pending = e.toolCalls;
        return;
      case 'REPLY_END':
        return this.end(e);
      default:
        return;
    }
  }

  private end(e: ReplyEndEvent): void {
    const usage = e.usage ? { usage: { ...e.usage } } : undefined;
    if (e.output !== undefined) this.artifact('output', 'output', [dataPart(e.output)], false);
    switch (e.finishReason) {
      case 'completed':
      case 'max_iters':
        return this.status(TaskState.TASK_STATE_COMPLETED, [textPart(this.finalText)], usage);
      case 'awaiting_confirmation':
        return this.status(TaskState.TASK_STATE_INPUT_REQUIRED, this.confirmationParts(), usage);
      case 'interrupted':
        return this.status(TaskState.TASK_STATE_CANCELED, [textPart('The reply was cancelled.')], usage);
      case 'error':
        return this.status(
          TaskState.TASK_STATE_FAILED,
          [textPart(`The agent failed: ${e.error?.message ?? 'unknown error'}`)],
          usage,
        );
      default:
        return this.status(
          TaskState.TASK_STATE_FAILED,
          [textPart(`The reply ended with "${e.finishReason}", which cannot be continued over A2A.`)],
          usage,
        );
    }
  }

  private confirmationParts(): Part[] {
    return [
      textPart(
        'The agent waits for a confirmation before it goes on. Answer "yes" to approve, anything else to deny ' +
          '(or send data {approve, arguments?, reason?}).',
      ),
      dataPart({ toolCalls: this.pending.map((c) => ({ id: c.id, name: c.name, input: c.input, reason: c.reason })) }),
    ];
  }

  private artifact(artifactId: string, name: string, parts: Part[], append: boolean): void {
    this.bus.publish(
      A2aEvent.artifactUpdate({
        taskId: this.taskId,
        contextId: this.contextId,
        artifact: { artifactId, name, description: '', parts, metadata: undefined, extensions: [] },
        append,
        lastChunk: false,
        metadata: undefined,
      }),
    );
  }

  private status(state: TaskState, parts: Part[], metadata?: Record<string, unknown>): void {
    const ids = { taskId: this.taskId, contextId: this.contextId };
    this.bus.publish(
      A2aEvent.statusUpdate({
        ...ids,
        status: { state, message: a2aMessage('agent', parts, ids, metadata), timestamp: new Date().toISOString() },
        metadata,
      }),
    );
  }
}
