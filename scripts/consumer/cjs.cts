// The consumer test's CommonJS program: the same packages loaded with require() (Node's
// require(esm), Node 20.19 or later), typed through TypeScript's `nodenext` resolution.
import assert = require('node:assert/strict');
import { z } from 'zod';
import { Agent, defineTool, textOfMsg } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { ModelCallLimitMiddleware } from '@rxscope/middleware-builtin';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  readOnly: true,
  execute: ({ a, b }) => String(a + b),
});

async function main(): Promise<void> {
  const model = new ScriptedChatModel([{ toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] }, { text: '2 + 3 = 5' }]);
  const agent = new Agent({ model, tools: [add], middlewares: [new ModelCallLimitMiddleware({ perReply: 5 })] });
  const msg = await agent.call('What is 2 + 3?');
  const answer = textOfMsg(msg);
  assert.equal(answer, '2 + 3 = 5');
  const result = msg.content.find((b) => b.type === 'tool_result');
  assert.deepEqual(result?.type === 'tool_result' && result.output.map((c) => (c.type === 'text' ? c.text : c.type)), [
    '5',
  ]);
  console.log(JSON.stringify({ answer, format: typeof require === 'function' ? 'commonjs' : 'esm' }));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
