import { lastValueFrom, tap } from 'rxjs';
import { Agent, throwOnErrorEnd, type AgentEvent } from '../../../index.js';
import { OpenAIChatModel } from '../../../model/openai/index.js';

// OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible server) come from the environment.
const agent = new Agent({ model: new OpenAIChatModel({ model: 'gpt-4o-mini' }) });
const print = tap((e: AgentEvent) => {
  if (e.type === 'TEXT_BLOCK_DELTA') process.stdout.write(e.delta);
});

// Every failure is printed and exits 1: a failed reply rejects here, and Node reports it.
await lastValueFrom(agent.reply('What is 2 + 3?').pipe(print, throwOnErrorEnd()));
