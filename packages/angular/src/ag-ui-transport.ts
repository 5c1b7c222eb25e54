import { AgentStreamError, type AgentEvent } from '@rxscope/core';
import { createParser } from 'eventsource-parser';
import { concatMap, from, Observable } from 'rxjs';
import type { AgentChatRequest } from './agent-chat-request.js';
import { AgUiEventReader } from './ag-ui-events.js';
import type { ChatMessage } from './chat-types.js';
import type { RxscopeConfig } from './provide-rxscope.js';
import type { SharedStateEvent } from './shared-state.js';

/** What an AG-UI run needs besides the request: the thread, the history, the run it resumes. */
export interface AgUiRunContext {
  readonly threadId: string;
  /** The conversation as the chat holds it (a new user message already at its end). */
  readonly history: readonly ChatMessage[];
  /** The reply a `{confirmations}` request resumes. */
  readonly resumes?: string;
}

let runs = 0;

/**
 * One run over AG-UI (`createAgUiHandler`): POSTs a `RunAgentInput` — the thread's messages in
 * AG-UI's shape, and `resume` entries for confirmations — and reads the AG-UI events of the
 * answer as rxscope events. Cold; unsubscribing aborts the `fetch` (the server cancels the run).
 */
export function agUiReply(
  config: RxscopeConfig,
  request: AgentChatRequest,
  context: AgUiRunContext,
): Observable<AgentEvent | SharedStateEvent> {
  const runId = `run-${Date.now().toString(36)}-${++runs}`;
  const reader = new AgUiEventReader(context.resumes ?? runId);
  const body = {
    threadId: context.threadId,
    runId,
    state: {},
    messages: agUiMessages(context.history),
    tools: [],
    context: [],
    forwardedProps: {},
    ...('confirmations' in request
      ? {
          resume: request.confirmations.map((c) => ({
            interruptId: c.toolCallId,
            status: 'resolved',
            payload: {
              approved: c.confirmed,
              ...(c.input !== undefined ? { editedArgs: c.input } : {}),
              ...(c.reason !== undefined ? { reason: c.reason } : {}),
            },
          })),
        }
      : {}),
  };
  const headers = typeof config.headers === 'function' ? config.headers() : (config.headers ?? {});
  return sseData(config.url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  }).pipe(concatMap((event) => from(reader.read(event))));
}

/** The chat's messages as AG-UI messages: user text, assistant text with its tool calls, tool results. */
function agUiMessages(history: readonly ChatMessage[]): unknown[] {
  return history.flatMap((m) => {
    if (m.role === 'user') return [{ id: m.id, role: 'user', content: m.text }];
    const calls = m.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.inputText || JSON.stringify(c.input ?? {}) },
    }));
    const results = m.toolCalls
      .filter((c) => c.output !== undefined)
      .map((c) => ({ id: `result:${c.id}`, role: 'tool', toolCallId: c.id, content: c.output }));
    return [
      {
        id: m.id,
        role: 'assistant',
        ...(m.text ? { content: m.text } : {}),
        ...(calls.length ? { toolCalls: calls } : {}),
      },
      ...results,
    ];
  });
}

/** The JSON `data:` of each server-sent event of a POST, checked to be an AG-UI event (an object with a `type`). */
function sseData(url: string, init: RequestInit): Observable<Readonly<Record<string, unknown>> & { type: string }> {
  return new Observable((subscriber) => {
    const controller = new AbortController();
    const run = async () => {
      const response = await fetch(url, { ...init, signal: controller.signal }).catch((cause: unknown) => {
        throw new AgentStreamError('network', `The AG-UI request failed: ${(cause as Error).message}`, { cause });
      });
      if (!response.ok) {
        const text = (await response.text().catch(() => '')).slice(0, 200);
        throw new AgentStreamError('http', `The AG-UI request failed with HTTP ${response.status}: ${text}`, {
          status: response.status,
          body: text,
        });
      }
      const type = response.headers.get('content-type') ?? '';
      if (!type.startsWith('text/event-stream') || !response.body) {
        await response.body?.cancel().catch(() => undefined);
        throw new AgentStreamError(
          'not_event_stream',
          `Expected a text/event-stream response, got "${type || 'no content type'}".`,
          {
            status: response.status,
          },
        );
      }
      const parser = createParser({
        onEvent: (message) => {
          let value: unknown;
          try {
            value = JSON.parse(message.data);
          } catch {
            value = undefined;
          }
          if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string')
            throw new AgentStreamError('invalid_event', `Not an AG-UI event: ${message.data.slice(0, 200)}`, {});
          subscriber.next(value as Readonly<Record<string, unknown>> & { type: string });
        },
      });
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const chunk = await reader.read().catch((cause: unknown) => {
          throw new AgentStreamError('network', `The AG-UI stream broke: ${(cause as Error).message}`, { cause });
        });
        if (subscriber.closed) return;
        if (chunk.done) break;
        parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
      subscriber.complete();
    };
    run().catch((error: unknown) => {
      if (!subscriber.closed) subscriber.error(error);
    });
    return () => controller.abort(new Error('the subscriber unsubscribed'));
  });
}
