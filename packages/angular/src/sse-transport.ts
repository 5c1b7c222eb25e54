import { fromAgentEventStream, type AgentEvent } from '@rxscope/core';
import type { Observable } from 'rxjs';
import type { AgentChatRequest } from './agent-chat-request.js';
import type { RxscopeConfig } from './provide-rxscope.js';

/**
 * One reply over rxscope's own event stream: POSTs the request as JSON to the configured URL and
 * reads the answer with `fromAgentEventStream` (cold; unsubscribing aborts the `fetch`).
 */
export function sseReply(config: RxscopeConfig, request: AgentChatRequest): Observable<AgentEvent> {
  const headers = typeof config.headers === 'function' ? config.headers() : (config.headers ?? {});
  return fromAgentEventStream(config.url, {
    init: {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    },
  });
}
