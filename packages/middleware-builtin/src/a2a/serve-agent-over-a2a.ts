import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { AGENT_CARD_PATH, type AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { Agent, checkOptionKeys, OptionsError, optionKeys } from '@rxscope/core';
import type { AgentSessions } from '@rxscope/core/node';
import { type A2aCardOptions, buildAgentCard } from './agent-card.js';
import { type ExecutorAgents, RxscopeAgentExecutor } from './agent-executor.js';
import { ContextAgents } from './context-agents.js';

/**
 * What `serveAgentOverA2A` serves: one agent (every A2A context talks to it, in one
 * conversation); or, for a conversation per A2A context, a factory called with the context's id
 * (the shape of `AgentSessions`' `agent` option) or an `AgentSessions` (`@rxscope/core/node`),
 * whose session of that id each context is.
 *
 * @example
 * ```ts
 * const perContext: A2aAgentSource = (contextId) => new Agent({ name: 'support', model, sessionId: contextId });
 * const sessions: A2aAgentSource = new AgentSessions({ agent: (id) => new Agent({ name: 'support', model, sessionId: id, store }) });
 * ```
 */
export type A2aAgentSource = Agent | AgentSessions | ((contextId: string) => Agent | Promise<Agent>);

/** An `AgentSessions`, known by its shape (this entry point does not load `@rxscope/core/node`). */
const isSessions = (source: unknown): source is AgentSessions =>
  typeof source === 'object' &&
  source !== null &&
  typeof (source as Partial<AgentSessions>).agent === 'function' &&
  typeof (source as Partial<AgentSessions>).start === 'function';

/**
 * What `serveAgentOverA2A` uses of an Express app: `use(path, handler)`.
 *
 * @example
 * ```ts
 * const app: A2aExpressApp = express();
 * ```
 */
export interface A2aExpressApp {
  use(path: string, ...handlers: unknown[]): unknown;
}

/**
 * Options of `serveAgentOverA2A`: the Agent Card, and where to serve: on `port` (and `host`) of
 * a server of its own, or on an Express `app` you listen with yourself (then give `url`, the
 * address callers reach it at).
 *
 * @example
 * ```ts
 * const options: ServeAgentOverA2AOptions = { card: { description: 'Answers questions about orders.' }, port: 4000 };
 * ```
 */
export interface ServeAgentOverA2AOptions {
  /** What the Agent Card says of the agent (served at `/.well-known/agent-card.json`). */
  readonly card: A2aCardOptions;
  /** The port of a server of its own. Default 0: a free port (read it from `url`). Not with `app`. */
  readonly port?: number;
  /** The address it listens on. Default `127.0.0.1`. Not with `app`. */
  readonly host?: string;
  /**
   * An Express app to add the A2A routes to (at its root); you listen with it. Needs `url`.
   * (Typed by what is used of it, so a project without `@types/express` compiles.)
   */
  readonly app?: A2aExpressApp;
  /** The address callers reach the agent at, written in the card. Default with `port`: `http://<host>:<port>/`. */
  readonly url?: string;
  /**
   * With a factory, a context with no message for this long, in ms, has its agent dropped (its
   * next message gets a new one, from its session store if it has one). A running reply keeps it.
   * Default 30 minutes; `Infinity`: never.
   */
  readonly idleTimeoutMs?: number;
}

/** A context's default idle time before its agent is dropped: 30 minutes. */
const DEFAULT_IDLE_MS = 30 * 60_000;

/**
 * An agent served over A2A (see `serveAgentOverA2A`).
 *
 * @example
 * ```ts
 * const served: ServedA2aAgent = await serveAgentOverA2A(agent, { card: { description: 'Support.' } });
 * console.log(served.url, served.card.name); await served.close();
 * ```
 */
export interface ServedA2aAgent {
  /** Where callers reach it (the card is at `<url>.well-known/agent-card.json`). */
  readonly url: string;
  /** The Agent Card it serves. */
  readonly card: AgentCard;
  /** Cancels the running replies and, with `port`, stops listening. */
  close(): Promise<void>;
}

const OPTION_KEYS = optionKeys<ServeAgentOverA2AOptions>({
  card: true,
  port: true,
  host: true,
  app: true,
  url: true,
  idleTimeoutMs: true,
});

/**
 * Serves an agent over A2A (the Agent2Agent protocol, specification 1.0, on the official
 * `@a2a-js/sdk`'s JSON-RPC transport): the Agent Card at `/.well-known/agent-card.json`;
 * `SendMessage` and `SendStreamingMessage` run one reply per message as a task (the reply's text
 * and media as artifacts, its tool calls as `working` status updates, its end as the final status
 * with the usage in the metadata); `GetTask`; `CancelTask` cancels the reply and its model
 * request. A reply that waits for a confirmation ends the task's turn as `input-required`, and
 * the client's next message on the task answers it ("yes" approves; or data `{approve,
 * arguments?, reason?}`). One session per A2A context with a factory.
 *
 * @example
 * ```ts
 * const served = await serveAgentOverA2A(
 *   (contextId) => new Agent({ name: 'support', model, sessionId: contextId, store }),
 *   { card: { name: 'support', description: 'Answers questions about orders.' }, port: 4000 },
 * );
 * console.log(`${served.url}.well-known/agent-card.json`);
 * ```
 */
export async function serveAgentOverA2A(
  source: A2aAgentSource,
  options: ServeAgentOverA2AOptions,
): Promise<ServedA2aAgent> {
  checkOptionKeys('serveAgentOverA2A', options, OPTION_KEYS);
  const refuse = (key: string, message: string) =>
    new OptionsError('invalid_option', `serveAgentOverA2A.${key}`, `serveAgentOverA2A: ${message}`);
  const single = source instanceof Agent ? source : undefined;
  const factory = isSessions(source)
    ? (contextId: string) => source.agent(contextId)
    : typeof source === 'function'
      ? source
      : undefined;
  if (!single && !factory)
    throw refuse(
      'agent',
      'serve an Agent, an AgentSessions, or a function (contextId) => Agent for one per A2A context.',
    );
  if (typeof options.card !== 'object' || options.card === null)
    throw refuse('card', 'give a `card` with at least a `description`.');
  if (options.app && (options.port !== undefined || options.host !== undefined))
    throw refuse('app', 'give either `app` (you listen) or `port`/`host` (it listens), not both.');
  if (options.app && !options.url) throw refuse('url', 'with `app`, give `url`: where callers reach the agent.');
  checkUrl(options.url, refuse);

  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_MS;
  if (typeof idleTimeoutMs !== 'number' || !(idleTimeoutMs > 0))
    throw refuse('idleTimeoutMs', '`idleTimeoutMs` must be a positive number of ms (or Infinity).');
  const contexts = factory ? new ContextAgents(factory, idleTimeoutMs) : undefined;
  const agents: ExecutorAgents = contexts ?? { acquire: () => Promise.resolve(single!), release: () => undefined };
  // Checked before anything listens; built again below with the address.
  buildAgentCard(options.card, single?.name, options.url ?? 'http://127.0.0.1/');
  const own = options.app ? undefined : express();
  const app: A2aExpressApp = options.app ?? own!;
  let http: Server | undefined;
  let url = options.url;
  if (own) {
    const host = options.host ?? '127.0.0.1';
    const listening = own.listen(options.port ?? 0, host);
    await new Promise<void>((resolve, reject) => {
      listening.once('listening', resolve);
      listening.once('error', reject);
    });
    http = listening;
    const shownHost = host.includes(':') ? `[${host}]` : host;
    url ??= `http://${shownHost}:${(listening.address() as AddressInfo).port}/`;
  }
  const card = buildAgentCard(options.card, single?.name, url!);
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new RxscopeAgentExecutor(agents));
  // legacyCompat: A2A 0.3 clients (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`) too.
  const legacyCompat = { enabled: true };
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: () => Promise.resolve(card), legacyCompat }));
  app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  return {
    url: url!,
    card,
    close: async () => {
      const made = contexts?.agents() ?? [Promise.resolve(single!)];
      contexts?.clear();
      await Promise.allSettled(
        made.map(async (a) => {
          const agent = await a;
          if (agent.busy) agent.interrupt('the A2A server is closing');
        }),
      );
      if (http) {
        http.closeAllConnections();
        await new Promise<void>((resolve) => http.close(() => resolve()));
      }
    },
  };
}

function checkUrl(url: string | undefined, refuse: (key: string, message: string) => Error): void {
  if (url === undefined) return;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse('url', `\`url\` is not a valid URL: ${JSON.stringify(url)}.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw refuse('url', `\`url\` must be http(s), got ${parsed.protocol}`);
}
