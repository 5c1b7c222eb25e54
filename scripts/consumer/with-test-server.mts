// Runs a docs program of the consumer project against the OpenAI-compatible test server of the
// installed @rxscope/core/testing/node: `node with-test-server.mjs <program.js> <answer text>`.
// The program's OpenAI client finds the server through OPENAI_BASE_URL and OPENAI_API_KEY (the
// `openai` package reads both), every model request is answered <answer text>, and the program's
// output and exit code pass through; a program that does not end by itself within 60 s is killed.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startOpenAITestServer } from '@rxscope/core/testing/node';

const [program, answer] = process.argv.slice(2) as [string, string];
const model = await startOpenAITestServer({ handler: () => ({ text: answer }) });
const child = spawn(process.execPath, [program], {
  env: { ...process.env, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: model.url },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const timer = setTimeout(() => {
  console.error(`${program} did not end within 60 s`);
  child.kill();
}, 60_000);
const [code] = (await once(child, 'exit')) as [number | null];
clearTimeout(timer);
await model.close();
process.exitCode = code ?? 1;
