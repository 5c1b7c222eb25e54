// A harness part's build environment on a fresh temporary workspace, for the part specs.
import type { Middleware } from '@rxscope/core';
import { InMemoryMessageBus } from '../bus/index.js';
import type { AssembledPart, HarnessEnv, HarnessPartDefinition } from '../harness-part.js';
import { BackgroundTasks } from '../tasks/index.js';
import { LocalFileSystem } from '../workspace/index.js';
import { tempDir } from './helpers.js';

/** An environment for building parts, and its cleanup. */
export function partEnv(lent: readonly Middleware[] = []): HarnessEnv & { cleanup: () => void } {
  const dir = tempDir();
  const bus = new InMemoryMessageBus();
  return {
    fileSystem: new LocalFileSystem(dir.path),
    workspace: dir.path,
    bus,
    tasks: new BackgroundTasks({ bus }),
    lent,
    cleanup: () => {
      void bus.close();
      dir.cleanup();
    },
  };
}

/** The parts `definition` builds from `options` (always a list). */
export function built<O>(definition: HarnessPartDefinition<O>, options: O, env: HarnessEnv): readonly AssembledPart[] {
  const made = definition.build(options, env);
  return Array.isArray(made) ? (made as readonly AssembledPart[]) : [made as AssembledPart];
}

/** The one part `definition` builds from `options`. */
export function builtOne<O>(definition: HarnessPartDefinition<O>, options: O, env: HarnessEnv): AssembledPart {
  const parts = built(definition, options, env);
  if (parts.length !== 1) throw new Error(`expected one part, got ${parts.length}`);
  return parts[0]!;
}

/** The tool names a built part contributes (its middleware's, or its own). */
export const toolNamesOf = (p: AssembledPart): string[] =>
  (p.middleware?.tools?.() ?? p.tools ?? []).map((t) => t.name);
