import { Agent, type ChatModel, type Tool } from '../../../index.js';

export const alwaysUseTools = (model: ChatModel, add: Tool) =>
  new Agent({ model, tools: [add], toolChoice: 'required', resetToolChoice: false, maxIters: 2 });
// toolChoice per request: ['required', 'required', 'none'], finishReason 'max_iters'
