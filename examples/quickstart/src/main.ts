/**
 * rxscope quickstart: an agent with two real tools, its events streamed to the terminal.
 *
 *   npm run demo                          offline: a scripted model on a local test server
 *   OPENAI_API_KEY=sk-... npm run demo -- "What time is it in Lima?"
 *   npm run demo -- --json                raw events, one JSON object per line
 *
 * Environment: OPENAI_API_KEY, OPENAI_BASE_URL (any OpenAI-compatible server), OPENAI_MODEL
 * (default gpt-4o-mini), NO_COLOR.
 */
import { Agent } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { lastValueFrom } from 'rxjs';
import { OFFLINE_PROMPT, startOfflineModel } from './offline.js';
import { renderJson, renderReply, terminalSupport } from './renderer.js';
import { tools } from './tools.js';

const SYSTEM_PROMPT =
  'You are a concise assistant. Use the calculator for every computation and current_time for every question about the time; never guess them.';

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write('usage: node examples/quickstart/dist/main.js [--json] [question...]\n');
    return 0;
  }
  const json = argv.includes('--json');
  const question = argv
    .filter((a) => !a.startsWith('--'))
    .join(' ')
    .trim();
  const env = process.env;
  const term = terminalSupport(process.stdout, env);
  const c = (code: number, s: string) => (term.color && !json ? `\x1b[${code}m${s}\x1b[0m` : s);
  // In --json mode stdout carries only events; the rest goes to stderr.
  const say = (text: string) => (json ? process.stderr : process.stdout).write(text);

  let model: OpenAIChatModel;
  let prompt: string;
  let stop = async () => {};
  if (env['OPENAI_API_KEY']) {
    const name = env['OPENAI_MODEL'] || 'gpt-4o-mini';
    const baseURL = env['OPENAI_BASE_URL'] || undefined;
    model = new OpenAIChatModel({ model: name, apiKey: env['OPENAI_API_KEY'], ...(baseURL ? { baseURL } : {}) });
    prompt = question || OFFLINE_PROMPT;
    say(`${c(1, 'rxscope quickstart')} · ${name}${baseURL ? ` at ${baseURL}` : ''}\n\n`);
  } else {
    const server = await startOfflineModel();
    stop = () => server.close();
    model = new OpenAIChatModel({ model: 'offline-scripted', apiKey: 'offline', baseURL: server.url });
    prompt = OFFLINE_PROMPT;
    say(`${c(1, 'rxscope quickstart')} · ${c(33, 'offline scripted model')}\n`);
    say(
      c(
        2,
        `A local OpenAI-compatible test server (${server.url}) replays a scripted conversation; the tools are real.\nSet OPENAI_API_KEY to talk to a real model.\n`,
      ),
    );
    if (question) say(c(33, `(The scripted model only knows its own question, so "${question}" is ignored.)\n`));
    say('\n');
  }

  const agent = new Agent({ name: 'assistant', sysPrompt: SYSTEM_PROMPT, model, tools });
  say(`${c(36, '›')} ${prompt}\n\n`);
  // Ctrl-C once: stop the reply gracefully (the summary still prints); twice: exit.
  process.once('SIGINT', () => agent.interrupt('stopped with Ctrl-C'));

  const events = agent.reply(prompt);
  try {
    const summary = await lastValueFrom(
      json
        ? renderJson(events, (s) => process.stdout.write(s))
        : renderReply(events, {
            write: (s) => process.stdout.write(s),
            ...term,
            columns: process.stdout.columns ?? 200,
          }),
      { defaultValue: undefined },
    );
    return summary?.finishReason === 'completed' ? 0 : 1;
  } finally {
    await stop();
  }
}

// Piped into `head` and the like: stop quietly when the reader goes away.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(0);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`quickstart failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
