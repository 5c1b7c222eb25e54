/**
 * `SkillCuratorMiddleware` (`onReasoning`, `onSystemPrompt`, `onActing`): the agent's skills,
 * `skills/<name>/SKILL.md` in the workspace (front matter `name`, `description`; the body holds
 * the instructions), loaded only when a task needs them:
 *
 * - Discovery: the skills are read once per reply (on its first reasoning step) and listed by
 *   name and description in an `<available_skills>` section of the system prompt.
 * - `load_skill {name}` returns a skill's instructions (and its folder, for files beside
 *   `SKILL.md`). Each load counts: usage (`count`, `lastUsedAt`) is persisted in the agent state
 *   (`middlewareState.SkillCuratorMiddleware.usage`).
 * - The curator (at most once per `curateEveryHours`, at a reply's first step) marks an
 *   agent-written skill (`author: agent`) unused for `staleAfterDays` as stale (`stale_since` in
 *   its front matter) and moves one stale and unused for `archiveAfterDays` more to
 *   `skills/.archive/<name>/`. It never deletes, never touches the user's skills, and a stale
 *   skill loaded again loses its mark. It emits `CUSTOM skills_curated {stale, archived}` when
 *   it changed something.
 *
 * @example
 * ```ts
 * const fs = new LocalFileSystem('./ws');
 * const agent = new Agent({ model, middlewares: [new SkillCuratorMiddleware({ fileSystem: fs })] });
 * // the model sees <available_skills> and calls load_skill {name: 'release'}
 * ```
 *
 * @module
 */
import { concat, concatMap, defer, from, type Observable, of, switchMap } from 'rxjs';
import { z } from 'zod';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  ContextToken,
  defineTool,
  type Middleware,
  type Next,
  type ReasoningInput,
  type RuntimeContext,
  type Tool,
  optionKeys,
} from '@rxscope/core';
import { curateSkills, unmarkStale, type SkillCurationPolicy, type SkillUsage } from '../curate-skills.js';
import { listSkills, loadSkill, type SkillDefinition } from '../skill-definition.js';
import type { WorkspaceFileSystem } from '../../workspace/index.js';
import { refuseUnknownOptions } from '../../options/index.js';

/** Options of {@link SkillCuratorMiddleware}. */
export interface SkillCuratorOptions extends SkillCurationPolicy {
  readonly fileSystem: WorkspaceFileSystem;
  /** Hours between two curations (persisted, so across replies and restarts). Default 24; `false` never curates. */
  readonly curateEveryHours?: number | false;
  /** Most skills listed in the prompt (the most used first). Default 100. */
  readonly maxListed?: number;
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
  /** Where unreadable skill files and failed curations are reported. Default `console.error`. */
  readonly onError?: (error: unknown) => void;
}

/** What the middleware persists in the agent state. */
export interface SkillCuratorState {
  readonly usage: Readonly<Record<string, SkillUsage>>;
  readonly lastCuratedAt?: number;
}

const SKILLS = new ContextToken<Promise<SkillDefinition[]> | undefined>('skills of this reply', () => undefined);
const CURATED = new ContextToken<boolean>('skills curated in this reply', () => false);

// Every option, typed against SkillCuratorOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<SkillCuratorOptions>({
  fileSystem: true,
  curateEveryHours: true,
  maxListed: true,
  now: true,
  onError: true,
  staleAfterDays: true,
  archiveAfterDays: true,
});

/** See the module documentation. */
export class SkillCuratorMiddleware implements Middleware {
  readonly key = 'SkillCuratorMiddleware';
  private readonly tool: Tool<{ name: string }>;
  private readonly now: () => number;
  private readonly onError: (error: unknown) => void;

  constructor(private readonly options: SkillCuratorOptions) {
    refuseUnknownOptions('SkillCuratorMiddleware', options, OPTION_KEYS);
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? ((e) => console.error('[SkillCuratorMiddleware]', e));
    const fs = options.fileSystem;
    this.tool = defineTool({
      name: 'load_skill',
      description:
        'Load a skill listed in <available_skills>: returns its instructions. Load one when the task matches its description, ' +
        'before you start the work, and follow it.',
      input: z.object({ name: z.string().min(1).describe('The skill name, as listed in <available_skills>.') }),
      readOnly: true,
      concurrencySafe: true,
      execute: async ({ name }) => {
        const skill = await loadSkill(fs, name);
        return `<skill name="${skill.name}" folder="skills/${skill.name}/">\n${skill.body}\n</skill>`;
      },
    });
  }

  tools(): readonly Tool[] {
    return [this.tool];
  }

  /**
   * The persisted usage and curation time of the agent whose context this is.
   *
   * @example
   * ```ts
   * middleware.state(ctx).usage['release']?.count; // 3
   * ```
   */
  state(ctx: RuntimeContext): SkillCuratorState {
    return ctx.state<SkillCuratorState>(this.key).get() ?? { usage: {} };
  }

  onReasoning(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    if (ctx.get(CURATED)) return next(input);
    ctx.set(CURATED, true);
    return defer(() => from(this.curate(ctx))).pipe(
      switchMap((curated) => (curated ? concat(of(curated), next(input)) : next(input))),
    );
  }

  onSystemPrompt(_agent: AgentHandle, ctx: RuntimeContext, prompt: string): Promise<string> {
    return this.skillsOf(ctx).then((skills) => {
      if (!skills.length) return prompt;
      const usage = this.state(ctx).usage;
      const listed = [...skills]
        .sort((a, b) => (usage[b.name]?.count ?? 0) - (usage[a.name]?.count ?? 0) || a.name.localeCompare(b.name))
        .slice(0, this.options.maxListed ?? 100)
        .sort((a, b) => a.name.localeCompare(b.name));
      const lines = listed.map(
        (s) =>
          `<skill name="${s.name}"${s.staleSince ? ' stale="true"' : ''}>${s.description || '(no description)'}</skill>`,
      );
      const section =
        `<available_skills>\n${lines.join('\n')}\n</available_skills>\n` +
        'When a task matches a skill, call load_skill {name} first and follow its instructions.';
      return prompt ? `${prompt}\n\n${section}` : section;
    });
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    if (input.tool.name !== this.tool.name) return next(input);
    const name = (input.input as { name: string }).name;
    return next(input).pipe(
      concatMap((e) => {
        if (e.type !== 'TOOL_RESULT_END' || e.toolCallId !== input.toolCall.id || e.status !== 'success') return of(e);
        const state = this.state(ctx);
        const count = (state.usage[name]?.count ?? 0) + 1;
        ctx
          .state<SkillCuratorState>(this.key)
          .set({ ...state, usage: { ...state.usage, [name]: { count, lastUsedAt: this.now() } } });
        // In use again: a stale mark goes (a failure to rewrite the file does not fail the call).
        return from(
          loadSkill(this.options.fileSystem, name)
            .then((skill) => (skill.staleSince ? unmarkStale(this.options.fileSystem, skill) : undefined))
            .catch(this.onError)
            .then(() => e),
        );
      }),
    );
  }

  private skillsOf(ctx: RuntimeContext): Promise<SkillDefinition[]> {
    let skills = ctx.get(SKILLS);
    if (!skills) {
      skills = listSkills(this.options.fileSystem, this.onError).catch((e: unknown) => {
        this.onError(e);
        return [];
      });
      ctx.set(SKILLS, skills);
    }
    return skills;
  }

  /** Curates when due; resolves with the event to emit when something changed. */
  private async curate(ctx: RuntimeContext): Promise<AgentEvent | undefined> {
    const every = this.options.curateEveryHours ?? 24;
    if (every === false) return undefined;
    const state = this.state(ctx);
    const now = this.now();
    if (state.lastCuratedAt !== undefined && now - state.lastCuratedAt < every * 3_600_000) return undefined;
    ctx.state<SkillCuratorState>(this.key).set({ ...state, lastCuratedAt: now });
    try {
      const skills = await this.skillsOf(ctx);
      const result = await curateSkills(this.options.fileSystem, skills, state.usage, now, this.options);
      if (!result.stale.length && !result.archived.length) return undefined;
      // The prompt of this reply lists what is there now.
      ctx.set(SKILLS, listSkills(this.options.fileSystem, this.onError));
      return ctx.event('CUSTOM', { name: 'skills_curated', value: result });
    } catch (e) {
      this.onError(e);
      return undefined;
    }
  }
}
