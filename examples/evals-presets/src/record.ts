/**
 * Records the cassettes main.ts replays: every task with every preset, in a fresh copy of the
 * fixture repository, through RecordingMiddleware.
 *
 *   node examples/evals-presets/dist/record.js             the scripted model (scripted-model.ts)
 *   OPENAI_API_KEY=sk-... node examples/evals-presets/dist/record.js   a real model (OPENAI_MODEL, default gpt-4o-mini)
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatModel } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { cassetteFile } from '@rxscope/middleware-builtin/node';
import { RecordingMiddleware } from '@rxscope/middleware-builtin/recording';
import { CASSETTES, freshWorkspace, PRESETS, presetAgent } from './presets.js';
import { scriptedTurn } from './scripted-model.js';
import { TASKS } from './tasks.js';

function model(): ChatModel {
  const key = process.env['OPENAI_API_KEY'];
  if (key) return new OpenAIChatModel({ model: process.env['OPENAI_MODEL'] || 'gpt-4o-mini', apiKey: key });
  return new ScriptedChatModel((request) => scriptedTurn(request), { modelName: 'scripted-repo-model' });
}

async function main(): Promise<void> {
  for (const preset of PRESETS) {
    const dir = join(CASSETTES, preset);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const task of TASKS) {
      const workspace = freshWorkspace();
      try {
        const save = cassetteFile(join(dir, `${task.id}.json`));
        const agent = presetAgent(preset, model(), workspace, [new RecordingMiddleware({ save })]);
        await agent.call(task.prompt).catch(() => undefined); // a failed reply is recorded too
        process.stdout.write(`recorded ${preset}/${task.id}\n`);
      } finally {
        rmSync(workspace, { recursive: true, force: true });
      }
    }
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`recording failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
