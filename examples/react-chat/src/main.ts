/**
 * Serves the React chat on Hono: `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `MODEL` name the model
 * (any OpenAI-compatible server), `PORT` the port (default 3000). Build the page first (`vite build`).
 */
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { createApp } from './app.js';

const model = new OpenAIChatModel({
  model: process.env['MODEL'] ?? 'gpt-4o-mini',
  apiKey: process.env['OPENAI_API_KEY'] ?? 'none',
  ...(process.env['OPENAI_BASE_URL'] ? { baseURL: process.env['OPENAI_BASE_URL'] } : {}),
});
const webRoot = fileURLToPath(new URL('../dist/web', import.meta.url));
const port = Number(process.env['PORT'] ?? 3000);
serve({ fetch: createApp(model, webRoot).fetch, port }, (info) =>
  console.log(`react-chat on http://localhost:${info.port}`),
);
