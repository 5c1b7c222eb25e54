/**
 * Records the cassettes main.ts replays: every task with every preset, in a fresh copy of the
 * fixture repository, through RecordingMiddleware. The model is a real one with OPENAI_API_KEY
 * (OPENAI_MODEL, default gpt-4o-mini), else the scripted model (scripted-model.ts).
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

/** The model to record: OpenAI's with a key, the scripted one without. */
export function recordingModel(env: NodeJS.ProcessEnv = process.env): ChatModel {
  const key = env['OPENAI_API_KEY'];
  if (key) return new OpenAIChatModel({ model: env['OPENAI_MODEL'] || 'gpt-4o-mini', apiKey: key });
  return new ScriptedChatModel((request) => scriptedTurn(request), { modelName: 'scripted-repo-model' });
}

/** Records every preset × task into cassettes/<preset>/<task>.json (the old ones are replaced). */
export async function recordCassettes(model: () => ChatModel, log: (line: string) => void): Promise<void> {
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
        log(`recorded ${preset}/${task.id}`);
      } finally {
        rmSync(workspace, { recursive: true, force: true });
      }
    }
  }
}
