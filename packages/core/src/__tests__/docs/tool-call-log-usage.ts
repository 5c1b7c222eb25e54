import { Agent, type ChatModel, type Tool } from '../../index.js';
import { ToolCallLogMiddleware } from './tool-call-log-middleware.js';

export async function addThenFail(model: ChatModel, add: Tool, fail: Tool) {
  const agent = new Agent({ model, tools: [add, fail], middlewares: [new ToolCallLogMiddleware()] });
  await agent.call('Add 2 and 3, then fail');
  // [assistant] add {"a":2,"b":3} -> success in 0 ms
  // [assistant] fail {"reason":"disk full"} -> error in 1 ms
}
