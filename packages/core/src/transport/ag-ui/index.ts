// @rxscope/core/ag-ui — the AG-UI bridge (needs the optional peers @ag-ui/core and @ag-ui/client).
export { AG_UI_CUSTOM_PREFIX, toAgUiEvents } from './to-ag-ui-events.js';
export type { ToAgUiEventsOptions } from './to-ag-ui-events.js';
export { RxscopeAgUiAgent } from './rxscope-ag-ui-agent.js';
export { confirmResultsOf } from './confirm-results-of.js';
export type { RxscopeAgUiAgentOptions } from './rxscope-ag-ui-agent.js';
export { AgUiInterruptPendingError, AgUiToolNameClashError } from './ag-ui-run-input.js';
export { AgUiHistoryDivergedError } from './ag-ui-history.js';
export type { AgUiHistoryMode } from './ag-ui-run-input.js';
export { toAgUiContent } from './ag-ui-content.js';
export { RxscopeHttpAgent, AG_UI_CONNECT_PROPS } from './rxscope-http-agent.js';
export { agUiMessagesOf } from './ag-ui-messages-of.js';
export { toAgUiEventStreamResponse } from './to-ag-ui-event-stream-response.js';
export type { AgUiEventStreamResponseOptions } from './to-ag-ui-event-stream-response.js';
