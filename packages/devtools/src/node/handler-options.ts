import type { Agent, ChatModel } from '@rxscope/core';
import { checkOptionKeys, optionKeys } from '@rxscope/core';
import type { DevtoolsRecorder } from '../recorder/devtools-recorder.js';
import { DevtoolsError } from '../devtools-error.js';

/**
 * How `POST <base>/api/replay` replays a cassette: the handler builds a `ReplayChatModel` of
 * the posted cassette (`@rxscope/middleware-builtin/recording`) and asks `agent` for the agent to
 * run it with; the reply is recorded like any other.
 *
 * @example
 * ```ts
 * const replay: DevtoolsReplayOptions = {
 *   agent: (model) => new Agent({ name: 'bot', model, middlewares: instrumentMiddlewares(recorder, []) }),
 * };
 * ```
 */
export interface DevtoolsReplayOptions {
  /** Builds the agent that replays (give it the recorder's middleware to record its layers). */
  readonly agent: (model: ChatModel) => Agent | Promise<Agent>;
}

/**
 * Options of `createDevtoolsHandler`.
 *
 * @example
 * ```ts
 * createDevtoolsHandler({ recorder, enabled: process.env.NODE_ENV !== 'production', basePath: '/_devtools' });
 * ```
 */
export interface DevtoolsHandlerOptions {
  /** The replies to show. */
  readonly recorder: DevtoolsRecorder;
  /**
   * Serve the devtools. Default: on, except with `NODE_ENV=production`, where leaving it out is
   * refused when the handler is created (the devtools show what agents do: turn them on in
   * production on purpose). `false`: every request goes to `next` (or gets a 404).
   */
  readonly enabled?: boolean;
  /**
   * Remote addresses allowed besides loopback (127.0.0.0/8, ::1): a list of addresses, or a
   * function of the address. Default: loopback only; any other address gets a 403.
   */
  readonly allow?: readonly string[] | ((remoteAddress: string) => boolean);
  /**
   * The path the handler is mounted at, for servers that hand it the whole URL (plain
   * `node:http`, a Fastify wildcard route). Express's `app.use(path, handler)` needs none.
   */
  readonly basePath?: string;
  /** The built UI. Default: `dist-ui/` of the installed `@rxscope/devtools` package. */
  readonly uiDir?: string;
  /** Turns on `POST <base>/api/replay`. */
  readonly replay?: DevtoolsReplayOptions;
  /** Largest request body (a posted cassette) in bytes. Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /** SSE heartbeat comments of the feed, in ms. Default 15,000. */
  readonly heartbeatMs?: number;
  /** Bytes a feed client that does not read may have queued before it is dropped. Default 8 MiB. */
  readonly maxQueuedBytes?: number;
}

const KEYS = optionKeys<DevtoolsHandlerOptions>({
  recorder: true,
  enabled: true,
  allow: true,
  basePath: true,
  uiDir: true,
  replay: true,
  maxBodyBytes: true,
  heartbeatMs: true,
  maxQueuedBytes: true,
});
const REPLAY_KEYS = optionKeys<DevtoolsReplayOptions>({ agent: true });

/** The handler's options, checked, with their defaults. */
export interface ResolvedHandlerOptions {
  readonly recorder: DevtoolsRecorder;
  readonly enabled: boolean;
  readonly allowed: (remoteAddress: string) => boolean;
  /** `allow` was given: proxies and other host names are the user's to decide. */
  readonly widened: boolean;
  readonly basePath: string;
  readonly uiDir: string | undefined;
  readonly replay: DevtoolsReplayOptions | undefined;
  readonly maxBodyBytes: number;
  readonly heartbeatMs: number;
  readonly maxQueuedBytes: number;
}

function invalid(message: string): DevtoolsError {
  return new DevtoolsError('devtools_invalid_option', `createDevtoolsHandler: ${message}`);
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1)
    throw invalid(`"${name}" must be a positive integer, got ${String(value)}.`);
  return value;
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** Checks the options (unknown keys refused with a "did you mean"), production included. */
export function resolveHandlerOptions(options: DevtoolsHandlerOptions, env = process.env): ResolvedHandlerOptions {
  checkOptionKeys('createDevtoolsHandler', options, KEYS);
  if (!options || typeof options.recorder?.replies !== 'function')
    throw invalid('"recorder" is required: a DevtoolsRecorder (the one your agents\' DevtoolsMiddleware writes to).');
  if (options.replay !== undefined) {
    checkOptionKeys('createDevtoolsHandler replay', options.replay, REPLAY_KEYS);
    if (typeof options.replay.agent !== 'function')
      throw invalid('"replay.agent" must be a function (model) => Agent.');
  }
  if (options.enabled === undefined && env['NODE_ENV'] === 'production') {
    throw new DevtoolsError(
      'devtools_not_enabled',
      'createDevtoolsHandler: NODE_ENV is "production" and the "enabled" option is not set. The devtools show ' +
        "every agent's events: set enabled: true to serve them in production on purpose, or enabled: false.",
    );
  }
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  if (basePath && !basePath.startsWith('/')) throw invalid(`"basePath" must start with "/", got "${basePath}".`);
  const allow = options.allow;
  const allowed =
    allow === undefined
      ? () => false
      : typeof allow === 'function'
        ? allow
        : Array.isArray(allow)
          ? (address: string) => allow.includes(address) || allow.includes(address.replace(/^::ffff:/, ''))
          : (() => {
              throw invalid('"allow" must be a list of addresses or a function (remoteAddress) => boolean.');
            })();
  return {
    recorder: options.recorder,
    enabled: options.enabled ?? true,
    allowed: (address) => isLoopback(address) || allowed(address),
    widened: allow !== undefined,
    basePath,
    uiDir: options.uiDir,
    replay: options.replay,
    maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes, 4 * 1024 * 1024),
    heartbeatMs: positive('heartbeatMs', options.heartbeatMs, 15_000),
    maxQueuedBytes: positive('maxQueuedBytes', options.maxQueuedBytes, 8 * 1024 * 1024),
  };
}
