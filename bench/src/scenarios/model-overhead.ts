/**
 * Model overhead (issue 3): "calling through OpenAIChatModel must cost no more than 10% over
 * driving the plain `openai` client for the same exchange". One streamed chat completion of 20
 * text chunks plus a usage chunk, from the test server on loopback with zero latency, consumed
 * to the end by each contender.
 */
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { createMsg, type ModelRequest, type Usage } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import type { ServerTurn } from '@rxscope/core/testing/node';
import OpenAI from 'openai';
import { packageVersion } from '../harness/machine.js';
import type { Scenario } from '../harness/scenario.js';
import { startServerProcess } from '../harness/server.js';
import { streamByHand } from './sse-by-hand.js';

const MODEL = 'gpt-4o-mini';
const SYSTEM = 'You are a helpful assistant.';
const USER = 'Count from one to twenty, one word per number.';
const CHUNKS = [
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
].map((w, i) => (i === 0 ? w : ` ${w}`));
const TURN: ServerTurn = { text: CHUNKS, usage: { inputTokens: 27, outputTokens: 20 } };
const EXPECTED_TEXT = CHUNKS.join('');

/** What every contender returns: the streamed text and the output token count it read. */
interface Outcome {
  readonly text: string;
  readonly outputTokens: number | undefined;
}

export const modelOverhead: Scenario = {
  id: 'model-overhead',
  title: 'Model overhead: OpenAIChatModel vs the plain openai client',
  description:
    'One streamed chat completion (system + user message; the reply is 20 text chunks, then a usage chunk, `stream_options: {include_usage: true}`) ' +
    "from rxscope's OpenAI-compatible test server on 127.0.0.1 with zero added latency (in a child process, HTTP keep-alive), consumed to the end: " +
    'the text concatenated and the usage read. `openai` drives the plain client; `openai+signal` does the same with an `AbortSignal`, as a caller who wants cancellation must; ' +
    "`openai-sse` sends the request with the plain client and reads the body by hand with a push parser, as rxscope's adapter does (the SDK's `Stream` costs more than the adapter's own work); " +
    '`rxscope` subscribes to `OpenAIChatModel.stream(request)` ' +
    "(what the agent loop calls, with the reply's never-aborted signal) until it completes; `langchain` iterates `ChatOpenAI.stream(messages)` for reference. " +
    'Each operation is a whole HTTP exchange, so the ratios are what a caller pays end to end.',
  baseline: 'openai',
  requirements: [
    {
      contender: 'rxscope',
      baseline: 'openai',
      maxRatio: 1.1,
      text: 'calling through OpenAIChatModel costs no more than 10% over driving the plain openai client for the same exchange',
    },
    {
      // The adapter reads the body with a push parser, not the SDK's Stream: against the plain client
      // reading the same way, what remains is the adapter's own work (messages, events, the Observable).
      contender: 'rxscope',
      baseline: 'openai-sse',
      maxRatio: 1.1,
      text: 'OpenAIChatModel costs no more than 10% over the plain openai client with the body read as the adapter reads it (openai-sse)',
    },
  ],
  async setup() {
    const server = await startServerProcess({ turn: TURN });
    const apiKey = 'bench';

    const client = new OpenAI({ apiKey, baseURL: server.url, maxRetries: 0 });
    const wireMessages = [
      { role: 'system' as const, content: SYSTEM },
      { role: 'user' as const, content: USER },
    ];

    const model = new OpenAIChatModel({ model: MODEL, apiKey, baseURL: server.url, maxRetries: 0 });
    // One request, as the agent loop makes it: its signal belongs to the reply, not to the call.
    const request: ModelRequest = {
      messages: [createMsg('system', SYSTEM), createMsg('user', USER)],
      tools: [],
      toolChoice: 'auto',
      options: {},
      signal: new AbortController().signal,
    };

    const plain = async (signal?: AbortSignal): Promise<Outcome> => {
      const stream = await client.chat.completions.create(
        { model: MODEL, messages: wireMessages, stream: true, stream_options: { include_usage: true } },
        signal ? { signal } : undefined,
      );
      let text = '';
      let outputTokens: number | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) outputTokens = chunk.usage.completion_tokens;
      }
      return { text, outputTokens };
    };

    const chat = new ChatOpenAI({
      model: MODEL,
      apiKey,
      configuration: { baseURL: server.url },
      maxRetries: 0,
      streamUsage: true,
    });
    const lcMessages = [new SystemMessage(SYSTEM), new HumanMessage(USER)];

    return {
      contenders: [
        {
          name: 'openai',
          label: '`openai` client: `chat.completions.create({stream: true})`, `for await` over the chunks',
          run: () => plain(),
        },
        {
          name: 'openai+signal',
          label: 'the same, passing an `AbortSignal` (what cancellation costs in the client itself)',
          run: () => plain(request.signal),
        },
        {
          name: 'openai-sse',
          label:
            'the `openai` client sending the request, the body read by hand with a push parser (`asResponse()` + `eventsource-parser`), as `OpenAIChatModel` reads it',
          run: async (): Promise<Outcome> => {
            let text = '';
            let outputTokens: number | undefined;
            await streamByHand(
              client,
              { model: MODEL, messages: wireMessages, stream: true, stream_options: { include_usage: true } },
              (chunk) => {
                text += chunk.choices[0]?.delta.content ?? '';
                if (chunk.usage) outputTokens = chunk.usage.completion_tokens;
              },
            );
            return { text, outputTokens };
          },
        },
        {
          name: 'rxscope',
          label: '`OpenAIChatModel.stream(request)` subscribed to completion',
          run: () =>
            new Promise<Outcome>((resolve, reject) => {
              let text = '';
              let usage: Usage | undefined;
              model.stream(request).subscribe({
                next: (e) => {
                  if (e.type === 'TEXT_BLOCK_DELTA') text += e.delta;
                  else if (e.type === 'MODEL_CALL_END') usage = e.usage;
                },
                error: reject,
                complete: () => resolve({ text, outputTokens: usage?.outputTokens }),
              });
            }),
        },
        {
          name: 'langchain',
          label: '`ChatOpenAI.stream(messages)` from @langchain/openai, `for await` over the chunks',
          async run(): Promise<Outcome> {
            let text = '';
            let outputTokens: number | undefined;
            for await (const chunk of await chat.stream(lcMessages)) {
              text += typeof chunk.content === 'string' ? chunk.content : '';
              if (chunk.usage_metadata) outputTokens = chunk.usage_metadata.output_tokens;
            }
            return { text, outputTokens };
          },
        },
      ],
      check(name: string, result: unknown) {
        const r = result as Outcome;
        if (r.text !== EXPECTED_TEXT) throw new Error(`${name} read "${r.text}", expected "${EXPECTED_TEXT}"`);
        if (r.outputTokens !== 20) throw new Error(`${name} read ${r.outputTokens} output tokens, expected 20`);
      },
      notes: [`Packages: ${['openai', '@langchain/openai', '@langchain/core', 'rxjs'].map(packageVersion).join(', ')}`],
      teardown: () => server.close(),
    };
  },
};
