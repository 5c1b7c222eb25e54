// An A2A server made only of the official SDK's parts (DefaultRequestHandler, its express
// handlers), with a small scripted executor: what a2aAgentTool is tested against. Run as a
// process (A2A_PROBE_MAIN=1) it prints "PORT <n>" and serves until killed, for the cases where
// the server dies mid-stream.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { AGENT_CARD_PATH, type AgentCard, type Message, Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const text = (value: string) => ({
  content: { $case: 'text' as const, value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});
const agentMessage = (value: string, taskId: string, contextId: string): Message => ({
  messageId: randomUUID(),
  contextId,
  taskId,
  role: Role.ROLE_AGENT,
  parts: [text(value)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

/**
 * Answers by the first word of the message: `echo <x>` (a working status, then "You said: " and
 * <x> as artifact chunks, completed), `confirm` (input-required; the next message on the task
 * completes it with "answered: <text>"), `slow` (works until cancelled), `fail` (failed: "no such
 * order"), `die` (a working status and a chunk, then the process exits).
 */
class ScriptedExecutor implements AgentExecutor {
  readonly cancelled: string[] = [];
  private readonly stops = new Map<string, () => void>();

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = request;
    const words = request.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');
    const status = (state: TaskState, message?: string) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            message: message ? agentMessage(message, taskId, contextId) : undefined,
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
    const chunk = (value: string, append: boolean) =>
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: 'answer',
            name: 'answer',
            description: '',
            parts: [text(value)],
            metadata: undefined,
            extensions: [],
          },
          append,
          lastChunk: false,
          metadata: undefined,
        }),
      );
    bus.publish(
      AgentEvent.task(
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
    if (request.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      status(TaskState.TASK_STATE_COMPLETED, `answered: ${words}`);
    } else if (words.startsWith('echo ')) {
      status(TaskState.TASK_STATE_WORKING, 'thinking');
      chunk('You said: ', false);
      chunk(words.slice(5), true);
      status(TaskState.TASK_STATE_COMPLETED);
    } else if (words === 'confirm') {
      status(TaskState.TASK_STATE_INPUT_REQUIRED, 'Approve the transfer of 100 EUR?');
    } else if (words === 'slow') {
      status(TaskState.TASK_STATE_WORKING, 'working on it');
      await new Promise<void>((resolve) => this.stops.set(taskId, resolve));
      status(TaskState.TASK_STATE_CANCELED, 'cancelled');
    } else if (words === 'die') {
      status(TaskState.TASK_STATE_WORKING, 'about to go');
      chunk('half an answer', false);
      setTimeout(() => process.exit(1), 50);
      await new Promise(() => undefined);
    } else {
      status(TaskState.TASK_STATE_FAILED, 'no such order');
    }
    bus.finished();
  }

  cancelTask(taskId: string): Promise<void> {
    this.cancelled.push(taskId);
    this.stops.get(taskId)?.();
    return Promise.resolve();
  }
}

/** The probe server, listening on a free loopback port. */
export async function startSdkProbeServer(): Promise<{
  url: string;
  card: AgentCard;
  cancelled: readonly string[];
  close(): Promise<void>;
}> {
  const executor = new ScriptedExecutor();
  const app = express();
  const http: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => http.once('listening', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`;
  const card: AgentCard = {
    name: 'probe agent',
    description: 'A scripted A2A agent.',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: () => Promise.resolve(card) }));
  app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    card,
    cancelled: executor.cancelled,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

if (process.env['A2A_PROBE_MAIN'] === '1') {
  void startSdkProbeServer().then(({ url }) => process.stdout.write(`PORT ${new URL(url).port}\n`));
}
