/**
 * node examples/fastify-sse/dist/main.js   (PORT, default 3002; OPENAI_API_KEY for a real model)
 *
 *   curl -N -X POST -H 'content-type: application/json' -H "x-session-id: $(uuidgen)" -d '{"message":"Hi"}' localhost:3002/chat
 */
import { textOfMsg, type ChatModel } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { createApp } from './app.js';

const model: ChatModel = process.env['OPENAI_API_KEY']
  ? new OpenAIChatModel({ model: process.env['OPENAI_MODEL'] || 'gpt-4o-mini', apiKey: process.env['OPENAI_API_KEY'] })
  : // Offline: an in-memory model that answers every message, word by word.
    new ScriptedChatModel(
      (request) => {
        const last = [...request.messages].reverse().find((m) => m.role === 'user');
        return { text: `You said: ${last ? textOfMsg(last) : ''}`.split(/(?<= )/) };
      },
      { delayMs: 50 },
    );

const { app } = createApp(model);
app.listen({ port: Number(process.env['PORT'] ?? 3002), host: '127.0.0.1' }).then(
  (address) => process.stdout.write(`listening on ${address}\n`),
  (error: unknown) => {
    process.stderr.write(`fastify-sse failed: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
