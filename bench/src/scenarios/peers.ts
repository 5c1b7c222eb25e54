/**
 * The field's agent loops driving the agent exchange over the test server: LangChain
 * `createAgent`, the AI SDK's `streamText` with a tool, OpenAI Agents JS `run` with streaming.
 * S1 and the concurrency-at-scale scenario measure the same adapters.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import {
  Agent as OpenAIAgent,
  OpenAIChatCompletionsModel,
  run as runOpenAIAgent,
  setTracingDisabled,
  tool as openAITool,
} from '@openai/agents';
import { stepCountIs, streamText, tool as aiTool } from 'ai';
import { createAgent, tool as langchainTool } from 'langchain';
import OpenAI from 'openai';
import {
  ADD_DESCRIPTION,
  add,
  addInput,
  MODEL,
  type Outcome,
  type ReplyHooks,
  SYSTEM,
  toolRunCount,
  USER,
} from './exchange.js';

/** One of the field's agent loops: one reply of the exchange, resolved when it is complete. */
export interface Peer {
  readonly name: 'langchain' | 'ai-sdk' | 'openai-agents';
  readonly label: string;
  reply(hooks?: ReplyHooks): Promise<Outcome>;
}

/** Text collected from a reply's deltas, calling `onFirstText` at the first one. */
class Collected {
  text = '';
  constructor(private readonly hooks: ReplyHooks) {}
  add(delta: string): void {
    if (!delta) return;
    if (!this.text) this.hooks.onFirstText?.();
    this.text += delta;
  }
}

const counted = async (f: () => Promise<string>): Promise<Outcome> => {
  const runs0 = toolRunCount();
  const text = await f();
  return { text, toolRuns: toolRunCount() - runs0 };
};

/** The three peers over the server at `baseURL`, each with its own client (no retries, tracing off). */
export function peers(baseURL: string, apiKey = 'bench'): Peer[] {
  setTracingDisabled(true);
  // LangChain: createAgent over ChatOpenAI, tokens streamed with streamMode 'messages'.
  const lcModel = new ChatOpenAI({
    model: MODEL,
    apiKey,
    configuration: { baseURL },
    maxRetries: 0,
    streaming: true,
    streamUsage: true,
  });
  const lcAdd = langchainTool(({ a, b }: { a: number; b: number }) => add(a, b), {
    name: 'add',
    description: ADD_DESCRIPTION,
    schema: addInput,
  });
  const lcAgent = createAgent({ model: lcModel, tools: [lcAdd], systemPrompt: SYSTEM });

  // AI SDK: the OpenAI provider's chat-completions model, streamText with the tool and up to 5 steps.
  const aiModel = createOpenAI({ apiKey, baseURL }).chat(MODEL);
  const aiTools = {
    add: aiTool({
      description: ADD_DESCRIPTION,
      inputSchema: addInput,
      execute: ({ a, b }) => Promise.resolve(add(a, b)),
    }),
  };

  // OpenAI Agents: a chat-completions model over its own openai client (tracing disabled: no exporter).
  const agentsAgent = new OpenAIAgent({
    name: 'assistant',
    instructions: SYSTEM,
    model: new OpenAIChatCompletionsModel(new OpenAI({ apiKey, baseURL, maxRetries: 0 }), MODEL),
    tools: [
      openAITool({
        name: 'add',
        description: ADD_DESCRIPTION,
        parameters: addInput,
        execute: ({ a, b }) => Promise.resolve(add(a, b)),
      }),
    ],
  });

  return [
    {
      name: 'langchain',
      label: '`createAgent({model: ChatOpenAI, tools})` (langchain 1.5), `agent.stream(…, {streamMode: "messages"})`',
      reply: (hooks = {}) =>
        counted(async () => {
          const out = new Collected(hooks);
          const stream = await lcAgent.stream(
            { messages: [{ role: 'user', content: USER }] },
            { streamMode: 'messages' },
          );
          for await (const [chunk] of stream) {
            if (chunk.type === 'ai' && typeof chunk.content === 'string') out.add(chunk.content);
          }
          return out.text;
        }),
    },
    {
      name: 'ai-sdk',
      label: '`streamText({model: openai.chat(…), tools, stopWhen: stepCountIs(5)})`, `fullStream` iterated',
      reply: (hooks = {}) =>
        counted(async () => {
          const out = new Collected(hooks);
          const result = streamText({
            model: aiModel,
            system: SYSTEM,
            prompt: USER,
            tools: aiTools,
            stopWhen: stepCountIs(5),
            maxRetries: 0,
          });
          for await (const part of result.fullStream) {
            if (part.type === 'text-delta') out.add(part.text);
            else if (part.type === 'error') throw part.error;
          }
          return out.text;
        }),
    },
    {
      name: 'openai-agents',
      label:
        '`run(agent, input, {stream: true})` with `OpenAIChatCompletionsModel`, events iterated, `completed` awaited',
      reply: (hooks = {}) =>
        counted(async () => {
          const out = new Collected(hooks);
          const result = await runOpenAIAgent(agentsAgent, USER, { stream: true });
          for await (const event of result) {
            if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta')
              out.add(event.data.delta);
          }
          await result.completed;
          return out.text;
        }),
    },
  ];
}
