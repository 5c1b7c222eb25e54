// @rxscope/middleware-builtin/a2a — A2A (the Agent2Agent protocol, specification 1.0): agents
// served over A2A, remote A2A agents as tools. A separate entry point so that the root entry never
// loads @a2a-js/sdk or express (optional peers).
export { serveAgentOverA2A } from './serve-agent-over-a2a.js';
export type {
  A2aAgentSource,
  A2aExpressApp,
  ServeAgentOverA2AOptions,
  ServedA2aAgent,
} from './serve-agent-over-a2a.js';
export type { A2aCardOptions, A2aSkill } from './agent-card.js';
export { confirmationAnswer } from './confirmation-answer.js';
export { A2aAgentError, a2aAgentTool, parseAgentCard } from './a2a-agent-tool.js';
export type { A2aAgentToolOptions } from './a2a-agent-tool.js';
