import type { ChatModel } from '@rxscope/core';
import { HttpError } from '@rxscope/core/node';
import type { DevtoolsRecorder } from '../recorder/devtools-recorder.js';
import type { DevtoolsReplayOptions } from './handler-options.js';

interface CassetteShape {
  readonly version: number;
  readonly modelCalls: readonly { readonly request?: { readonly messages?: readonly unknown[] } }[];
  readonly replies: readonly unknown[];
}

function refuse(message: string): HttpError {
  return new HttpError(400, message, 'devtools_cassette_invalid');
}

/** The text of the last user message of the first recorded model request: what the reply was asked. */
function userText(cassette: CassetteShape): string {
  const messages = cassette.modelCalls[0]?.request?.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown };
    if (m?.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content))
      return m.content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('');
  }
  throw refuse('The cassette has no user message in its first model request: nothing to replay.');
}

/**
 * Replays a posted cassette (the JSON `RecordingMiddleware` writes) through the agent the user's
 * factory builds on a `ReplayChatModel`, and resolves with the reply's id as soon as it started.
 * The reply runs on detached; its events reach the recorder through the agent's devtools
 * middleware, or, for an agent without one, from the stream itself.
 */
export async function replayCassette(
  body: unknown,
  replay: DevtoolsReplayOptions,
  recorder: DevtoolsRecorder,
): Promise<string> {
  const cassette = body as CassetteShape;
  if (!cassette || typeof cassette !== 'object' || typeof cassette.version !== 'number')
    throw refuse(
      'The body is not a cassette: it needs "version", "modelCalls" and "replies" (RecordingMiddleware writes one).',
    );
  if (!Array.isArray(cassette.modelCalls) || !Array.isArray(cassette.replies) || cassette.modelCalls.length === 0)
    throw refuse('The cassette needs a non-empty "modelCalls" list and a "replies" list.');
  const text = userText(cassette);
  // Loaded only when replay is used: @rxscope/middleware-builtin is an optional peer.
  const { ReplayChatModel } = await import('@rxscope/middleware-builtin/recording');
  let model: ChatModel;
  try {
    model = new ReplayChatModel(body as ConstructorParameters<typeof ReplayChatModel>[0]);
  } catch (e) {
    throw refuse(`The cassette cannot be replayed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const agent = await replay.agent(model);
  return new Promise<string>((resolveId, reject) => {
    let replyId: string | undefined;
    agent.reply(text).subscribe({
      next: (e) => {
        if (replyId === undefined && e.type === 'REPLY_START') {
          replyId = e.replyId;
          if (!recorder.recordsItself(replyId))
            recorder.begin({ replyId, agentName: e.source, sessionId: agent.sessionId });
          resolveId(replyId);
        }
        // An agent without a devtools layer of its own is recorded from its stream.
        if (replyId !== undefined && !recorder.recordsItself(e.replyId)) recorder.record(replyId, 'onAgent', [], e);
      },
      error: (e: unknown) => reject(e instanceof Error ? e : new Error(String(e))),
      complete: () => {
        if (replyId === undefined) reject(new Error('The replayed reply ended before it started.'));
      },
    });
  });
}
