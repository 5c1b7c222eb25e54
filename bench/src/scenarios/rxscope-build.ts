/**
 * The rxscope the scenarios measure: the working tree's build, and with `--compare <commit>`
 * another commit's build beside it (its own `@rxscope/core`, `OpenAIChatModel` and built-in
 * middlewares, loaded from `bench/.compare/<sha>`), so both run alternately in one process.
 */
import * as core from '@rxscope/core';
import type { Agent, AgentOptions } from '@rxscope/core';
import { OpenAIChatModel, type OpenAIChatModelOptions } from '@rxscope/core/openai';
import * as builtinModule from '@rxscope/middleware-builtin';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ComparedBuild } from '../harness/compare-build.js';

/** What a scenario uses of one build of rxscope. */
export interface RxscopeBuild {
  /** Appended to contender names: `''` for the working tree, `'@<sha>'` for a compared commit. */
  readonly tag: string;
  readonly newAgent: (options: AgentOptions) => Agent;
  readonly defineTool: typeof core.defineTool;
  readonly newOpenAIModel: (options: OpenAIChatModelOptions) => core.ChatModel;
  /** The built-in middlewares' modules (TracingMiddleware, RetryMiddleware...). */
  readonly builtin: typeof builtinModule;
}

/** The working tree's build. */
export const currentBuild: RxscopeBuild = {
  tag: '',
  newAgent: (options) => new core.Agent(options),
  defineTool: core.defineTool,
  newOpenAIModel: (options) => new OpenAIChatModel(options),
  builtin: builtinModule,
};

let compared: ComparedBuild | undefined;
let comparedLoaded: Promise<RxscopeBuild> | undefined;

/** Set by `--compare`: the scenarios that support it add this build's contenders. */
export function setComparedBuild(build: ComparedBuild): void {
  compared = build;
  comparedLoaded = undefined;
}

/**
 * The commit `--compare` names, as it was prepared (for a child process, which loads the same
 * build with {@link setComparedBuild}); undefined without `--compare`.
 *
 * @example
 * ```ts
 * const compared = comparedBuildInfo(); // { sha: '99b528c', dir: 'bench/.compare/99b528c' }
 * ```
 */
export function comparedBuildInfo(): ComparedBuild | undefined {
  return compared;
}

/**
 * The compared build, loaded from its own `dist` (its own rxjs and LangChain too); undefined
 * without `--compare`.
 *
 * @example
 * ```ts
 * const other = await comparedBuild();
 * if (other) contenders.push({ name: `rxscope${other.tag}`, run: () => rxscopeReply(exchangeAgent(model, [], other)) });
 * ```
 */
export function comparedBuild(): Promise<RxscopeBuild | undefined> {
  if (!compared) return Promise.resolve(undefined);
  comparedLoaded ??= load(compared);
  return comparedLoaded;
}

async function load({ sha, dir }: ComparedBuild): Promise<RxscopeBuild> {
  const from = async <T>(path: string): Promise<T> =>
    (await import(pathToFileURL(join(dir, 'packages', path)).href)) as T;
  const otherCore = await from<typeof core & { OpenAIChatModel?: typeof OpenAIChatModel }>('core/dist/index.js');
  // Commits before the adapters moved to `@rxscope/core/openai` export the model from the root.
  const Model =
    otherCore.OpenAIChatModel ??
    (await from<{ OpenAIChatModel: typeof OpenAIChatModel }>('core/dist/model/openai/index.js')).OpenAIChatModel;
  const otherBuiltin = await from<typeof builtinModule>('middleware-builtin/dist/index.js');
  return {
    tag: `@${sha}`,
    newAgent: (options) => new otherCore.Agent(options),
    defineTool: otherCore.defineTool,
    newOpenAIModel: (options) => new Model(options),
    builtin: otherBuiltin,
  };
}

/** Builds one value per build (a tool, a middleware stack), once. */
export function perBuild<T>(make: (build: RxscopeBuild) => T): (build: RxscopeBuild) => T {
  const made = new Map<RxscopeBuild, T>();
  return (build) => {
    let value = made.get(build);
    if (value === undefined) made.set(build, (value = make(build)));
    return value;
  };
}
