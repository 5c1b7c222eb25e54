// @rxscope/core/node/ag-ui — the AG-UI HTTP endpoint for Node (needs the optional peers @ag-ui/core and @ag-ui/client).
export { createAgUiHandler } from './create-ag-ui-handler.js';
export type { AgUiHandlerOptions } from './create-ag-ui-handler.js';
