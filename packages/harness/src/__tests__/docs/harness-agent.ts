import { throwOnErrorEnd } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { createHarnessAgent, describeHarness, presets } from '../../index.js';

const agent = createHarnessAgent({
  ...presets.coding(), // a plain options object: compose by spreading, later keys win
  name: 'coder',
  model: new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: process.env.OPENAI_API_KEY }),
  workspace: './ws', // created with its layout when missing
  sandbox: 'bubblewrap', // 'none' | 'local' | 'bubblewrap' | a Sandbox object
  compaction: { triggerTokens: 60_000 }, // or false
  toolResultEviction: { maxResultChars: 80_000 }, // or false
  planMode: true,
  // ...every AgentOptions field: middlewares (yours are the outermost), tools, permissions, store, ...
});

for (const part of describeHarness(agent).parts) console.log(part.enabled ? 'on ' : 'off', part.name, '—', part.reason);
agent
  .reply('Fix the failing test in @test/sum.test.js')
  .pipe(throwOnErrorEnd()) // a failed reply (no API key, a network error) becomes an error below
  .subscribe({
    next: (event) => {
      if (event.type === 'TEXT_BLOCK_DELTA') process.stdout.write(event.delta);
      if (event.type === 'TOOL_CALL_START') console.log(`\n[${event.name}]`);
    },
    error: (error: unknown) => {
      console.error(String(error));
      process.exitCode = 1;
    },
  });
