// The consumer test's run of docs/chat-service-with-approvals.md: the page's src/main.ts as a
// program (its own process, with OPENAI_BASE_URL pointing at the OpenAI-compatible test server of
// the installed @rxscope/core/testing/node), and the page's src/client.ts against it, approving
// the refund the model asks for. Prints one JSON line the spec checks.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PendingToolCall } from '@rxscope/core';
import { startOpenAITestServer } from '@rxscope/core/testing/node';
import { chat } from '../snippets/packages/core/src/__tests__/docs/chat-service/client.js';

const here = dirname(fileURLToPath(import.meta.url));
const model = await startOpenAITestServer({
  handler: (request) => {
    const last = request.body.messages?.at(-1);
    if (last?.role === 'tool') return { text: `Done: ${String(last.content)}` };
    return { toolCalls: [{ name: 'refund', input: { orderId: 'A-17', amount: 80 } }] };
  },
});
const service = spawn(
  process.execPath,
  [join(here, '../snippets/packages/core/src/__tests__/docs/chat-service/main.js')],
  {
    env: { ...process.env, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: model.url, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
try {
  const [line] = (await once(service.stdout!, 'data')) as [Buffer];
  const url = /listening on (\S+)/.exec(String(line))?.[1];
  if (!url) throw new Error(`main.ts printed ${String(line)}`);
  let text = '';
  const asked: PendingToolCall[] = [];
  await chat(url, 'consumer-1', 'Please refund order A-17, 80 EUR', {
    showText: (t) => void (text = t),
    approve: async (calls) => {
      asked.push(...calls);
      return true;
    },
  });
  console.log(JSON.stringify({ text, asked: asked.map((c) => ({ name: c.name, input: c.input })) }));
} finally {
  service.kill();
  await model.close();
}
