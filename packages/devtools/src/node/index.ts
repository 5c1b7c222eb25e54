// @rxscope/devtools/node: the HTTP handler (Node only). Explicit named exports only.
export { createDevtoolsHandler } from './create-devtools-handler.js';
export type { DevtoolsHandler } from './create-devtools-handler.js';
export type { DevtoolsHandlerOptions, DevtoolsReplayOptions } from './handler-options.js';
