/**
 * `PlanModeMiddleware`: a planning phase in which the agent may only look, not change.
 *
 * - Contributes `plan_enter {}`, `plan_write {content}` (writes `plans/PLAN.md`) and
 *   `plan_exit {summary?}`.
 * - While plan mode is active: a banner in the system prompt; the agent's permission mode is
 *   `plan` (non-read-only tools are denied with a result naming plan mode, before anyone is
 *   asked), and `onActing` denies them too, so a call decided before `plan_enter` ran in the
 *   same step is denied as well. The flag (and the permission mode to return to) persists in
 *   the agent state under this middleware's key.
 * - `plan_exit` always asks for confirmation (an ask rule for it is added to the agent's
 *   permissions); only a confirmed exit leaves plan mode, a rejected one keeps planning.
 * - Entering mid-reply takes effect at the next reasoning step: its system prompt has the banner.
 * - Emits `CUSTOM {name: 'plan_mode_changed', value: {active}}` on each switch.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, middlewares: [new PlanModeMiddleware({ fileSystem: new LocalFileSystem('./ws') })] });
 * ```
 *
 * @module
 */
import { concatMap, defer, from, type Observable, of } from 'rxjs';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  type AgentInput,
  type Middleware,
  newId,
  type Next,
  type PermissionMode,
  type RuntimeContext,
  type Tool,
  optionKeys,
} from '@rxscope/core';
import { WORKSPACE_LAYOUT, type WorkspaceFileSystem } from '../../workspace/index.js';
import { planTools, type PlanTools } from './plan-tools.js';
import { HarnessOptionError, refuseUnknownOptions } from '../../options/index.js';

/** Options of {@link PlanModeMiddleware}. */
export interface PlanModeOptions {
  /** Where `plan_write` writes `plans/PLAN.md`. */
  readonly fileSystem: WorkspaceFileSystem;
  /** Text of the banner shown while planning. Default: a short instruction. */
  readonly banner?: string;
}

/** What the middleware persists in the agent state. */
export interface PlanModeState {
  readonly active: boolean;
  /** The permission mode to return to when plan mode ends. */
  readonly previousMode?: PermissionMode;
}

const DEFAULT_BANNER =
  '## Plan mode is active\n' +
  'You are planning, not changing anything: explore with read-only tools, write the plan with plan_write ' +
  `(${WORKSPACE_LAYOUT.plan}), then call plan_exit to ask the user to approve it. Tools that change files or run ` +
  'commands are denied until the user approves the plan.';

// Every option, typed against PlanModeOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<PlanModeOptions>({
  fileSystem: true,
  banner: true,
});

/** See the module documentation. */
export class PlanModeMiddleware implements Middleware {
  readonly key = 'PlanModeMiddleware';
  private readonly planTools: PlanTools;
  private readonly names: ReadonlySet<string>;
  private readonly banner: string;

  constructor(options: PlanModeOptions) {
    refuseUnknownOptions('PlanModeMiddleware', options, OPTION_KEYS);
    if (!options?.fileSystem)
      throw new HarnessOptionError(
        'invalid_option',
        'PlanModeMiddleware.fileSystem',
        'PlanModeMiddleware needs the workspace fileSystem (where plan_write writes the plan).',
      );
    this.planTools = planTools(options.fileSystem);
    this.names = new Set([this.planTools.enter.name, this.planTools.write.name, this.planTools.exit.name]);
    this.banner = options.banner ?? DEFAULT_BANNER;
  }

  tools(): readonly Tool[] {
    return [this.planTools.enter, this.planTools.write, this.planTools.exit];
  }

  /** True when plan mode is active for the agent whose context this is. */
  isActive(ctx: RuntimeContext): boolean {
    return ctx.state<PlanModeState>(this.key).get()?.active === true;
  }

  onAgent(agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return defer(() => {
      agent.permissions.addRule({
        behavior: 'ask',
        tool: this.planTools.exit.name,
        reason: 'Leaving plan mode needs your approval of the plan.',
      });
      // A restored state: the permission mode follows the persisted flag.
      if (this.isActive(ctx) && agent.permissions.mode !== 'plan') agent.permissions.setMode('plan');
      return next(input);
    });
  }

  onSystemPrompt(_agent: AgentHandle, ctx: RuntimeContext, prompt: string): string {
    return this.isActive(ctx) ? (prompt ? `${prompt}\n\n${this.banner}` : this.banner) : prompt;
  }

  onActing(
    agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    const name = input.tool.name;
    if (!this.names.has(name)) {
      if (this.isActive(ctx) && !input.tool.readOnly) return from(deny(ctx, input));
      return next(input);
    }
    const switchTo = name === this.planTools.enter.name ? true : name === this.planTools.exit.name ? false : undefined;
    if (switchTo === undefined) return next(input);
    return next(input).pipe(
      concatMap((e) => {
        if (e.type !== 'TOOL_RESULT_END' || e.toolCallId !== input.toolCall.id || e.status !== 'success') return of(e);
        this.set(agent, ctx, switchTo);
        // The switch is announced right after the tool's result.
        return of(e, ctx.event('CUSTOM', { name: 'plan_mode_changed', value: { active: switchTo } }));
      }),
    );
  }

  private set(agent: AgentHandle, ctx: RuntimeContext, active: boolean): void {
    const slot = ctx.state<PlanModeState>(this.key);
    const current = slot.get();
    if (active) {
      if (current?.active) return;
      const previousMode = agent.permissions.mode === 'plan' ? 'default' : agent.permissions.mode;
      slot.set({ active: true, previousMode });
      agent.permissions.setMode('plan');
    } else {
      slot.set({ active: false });
      if (agent.permissions.mode === 'plan') agent.permissions.setMode(current?.previousMode ?? 'default');
    }
  }
}

function deny(ctx: RuntimeContext, input: ActingInput): AgentEvent[] {
  const blockId = newId('blk');
  const text = `Plan mode: "${input.tool.name}" may change things and is not allowed while planning. Write the plan with plan_write and ask for approval with plan_exit first.`;
  return [
    ctx.event('TOOL_RESULT_START', { blockId, toolCallId: input.toolCall.id, name: input.tool.name }),
    ctx.event('TOOL_RESULT_END', {
      blockId,
      toolCallId: input.toolCall.id,
      status: 'denied',
      output: [{ type: 'text', text }],
    }),
  ];
}
