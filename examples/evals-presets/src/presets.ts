/**
 * The three configurations compared: the harness's coding() and research() presets, and a custom
 * one (no preset's tool set: only read_file and edit_file, with a terse prompt). Each builds the
 * agent for one task in its own copy of the fixture repository.
 */
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Agent, ChatModel, Middleware } from '@rxscope/core';
import { createHarnessAgent, editFileTool, LocalFileSystem, presets, readFileTool } from '@rxscope/harness';

export const EXAMPLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CASSETTES = join(EXAMPLE_DIR, 'cassettes');

export type PresetName = 'coding' | 'research' | 'custom';
export const PRESETS: readonly PresetName[] = ['coding', 'research', 'custom'];

/** A fresh copy of the fixture repository in a temporary folder. */
export function freshWorkspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rxscope-evals-presets-'));
  cpSync(join(EXAMPLE_DIR, 'fixture-repo'), dir, { recursive: true });
  return dir;
}

/** The agent of one preset working in `workspace`. */
export function presetAgent(
  preset: PresetName,
  model: ChatModel,
  workspace: string,
  middlewares: Middleware[] = [],
): Agent {
  const common = { name: `evals-${preset}`, model, workspace, middlewares, maxIters: 8 };
  if (preset === 'coding') {
    // 'local': the same tools on every machine (bubblewrap is not installed everywhere); no task runs the shell.
    return createHarnessAgent({ ...presets.coding(), sandbox: 'local', ...common });
  }
  if (preset === 'research') return createHarnessAgent({ ...presets.research(), ...common });
  const fs = new LocalFileSystem(workspace);
  return createHarnessAgent({
    ...presets.minimal(),
    ...common,
    sysPrompt:
      'You are a terse code fixer. Read the file you are asked about, change only what is asked, answer in one line.',
    tools: [readFileTool(fs), editFileTool(fs)],
  });
}
