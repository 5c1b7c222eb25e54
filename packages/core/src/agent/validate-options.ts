import type { AgentOptions, CheckpointOptions } from './agent-options.js';
import { checkOptionKeys, optionKeys } from '../error/check-option-keys.js';
import { AgentUsageError } from './errors.js';

const HOOKS = [
  'onAgent',
  'onReasoning',
  'onActing',
  'onModelCall',
  'onCheckPermission',
  'onSystemPrompt',
  'tools',
  'onShutdown',
  'onConversationCut',
] as const;
// Every option, typed against AgentOptions: adding an option there without listing it here fails to compile.
const OPTIONS = optionKeys<AgentOptions>({
  name: true,
  sysPrompt: true,
  model: true,
  tools: true,
  middlewares: true,
  maxIters: true,
  toolChoice: true,
  resetToolChoice: true,
  modelOptions: true,
  maxConcurrentTools: true,
  sessionId: true,
  state: true,
  permissions: true,
  whilePending: true,
  store: true,
  checkpoints: true,
  onBackgroundError: true,
});

/** An unknown key: an AgentUsageError (callers branch on it) with the code every options refusal has. */
class UnknownAgentOptionError extends AgentUsageError {
  override readonly code = 'unknown_option';
}

/** What a value is, for an error message ("a string 'gpt-4o'", "undefined", "an array"). */
function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  if (typeof value === 'object') {
    const ctor = (value as { constructor?: { name?: string } }).constructor?.name;
    return ctor && ctor !== 'Object' ? `a ${ctor}` : 'an object';
  }
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${value}`;
  return `a ${typeof value}`;
}

const fail = (message: string, what = 'agent options'): never => {
  throw new AgentUsageError(`Invalid ${what}: ${message}`);
};

function checkModel(model: unknown): void {
  if (model === undefined) {
    fail(
      'model is missing. Pass a ChatModel, e.g. new OpenAIChatModel({ model: "gpt-4o-mini", apiKey }) ' +
        "from '@rxscope/core/openai', or new ScriptedChatModel([...]) from '@rxscope/core/testing' in tests.",
    );
  }
  const m = model as { stream?: unknown; modelName?: unknown };
  if (
    typeof model !== 'object' ||
    model === null ||
    typeof m.stream !== 'function' ||
    typeof m.modelName !== 'string'
  ) {
    const hint =
      typeof model === 'string'
        ? ` (a model name goes to the adapter: new OpenAIChatModel({ model: ${JSON.stringify(model)} }))`
        : '';
    fail(`model must be a ChatModel (an object with modelName and stream()), got ${describe(model)}${hint}.`);
  }
}

function checkMiddlewares(middlewares: unknown): void {
  if (middlewares === undefined) return;
  if (!Array.isArray(middlewares)) fail(`middlewares must be an array of middlewares, got ${describe(middlewares)}.`);
  const list = middlewares as unknown[];
  const seen = new Map<string, number>();
  list.forEach((m, i) => {
    if (typeof m !== 'object' || m === null) fail(`middlewares[${i}] must be a middleware object, got ${describe(m)}.`);
    const mw = m as Record<string, unknown>;
    for (const hook of HOOKS) {
      if (mw[hook] !== undefined && typeof mw[hook] !== 'function')
        fail(`middlewares[${i}].${hook} must be a function, got ${describe(mw[hook])}.`);
    }
    if (mw['key'] !== undefined && (typeof mw['key'] !== 'string' || mw['key'] === '')) {
      fail(`middlewares[${i}].key must be a non-empty string, got ${describe(mw['key'])}.`);
    }
    // The same instance twice runs every hook twice. A middleware that persists state keeps it
    // under its declared key (ctx.state(key)): two with one key would overwrite each other's state.
    // Middlewares without a key own no persisted state (the class name is no key: it changes
    // under minification), so only declared keys are compared.
    const earlier = list.indexOf(m);
    if (earlier < i)
      fail(`middlewares[${earlier}] and middlewares[${i}] are the same middleware instance; list it once.`);
    if (mw['key'] === undefined) return;
    const key = mw['key'] as string;
    const first = seen.get(key);
    if (first !== undefined) {
      fail(
        `middlewares[${first}] and middlewares[${i}] share the key "${key}" (their persisted state would ` +
          `collide). Give each a distinct key${keyHint(mw)}.`,
      );
    }
    seen.set(key, i);
  });
}

/** How to give this kind of middleware a key: a field of an object literal, an option of a class. */
function keyHint(m: object): string {
  const ctor = (m as { constructor?: { name?: string } }).constructor?.name;
  if (!ctor || ctor === 'Object') return ", e.g. { key: 'audit-log', onAgent: ... }";
  return ` (built-in middlewares take it as an option: new ${ctor}({ key: 'second', ... }))`;
}

/** Checks the `tools` of one reply ({@link ReplyOptions}); throws an `AgentUsageError` that names the bad one. */
export function checkReplyTools(tools: unknown, agentTools: ReadonlyMap<string, unknown>): void {
  checkTools(tools, 'reply options');
  const seen = new Set<string>();
  for (const t of (tools ?? []) as { name: string }[]) {
    if (agentTools.has(t.name))
      fail(`the tool "${t.name}" has the name of one of the agent's tools; rename it.`, 'reply options');
    if (seen.has(t.name)) fail(`two tools are named "${t.name}"; tool names must be unique.`, 'reply options');
    seen.add(t.name);
  }
}

function checkTools(tools: unknown, what?: string): void {
  if (tools === undefined) return;
  if (!Array.isArray(tools)) fail(`tools must be an array of tools from defineTool(), got ${describe(tools)}.`, what);
  (tools as unknown[]).forEach((t, i) => {
    const tool = t as { name?: unknown; schema?: unknown; inputSchema?: unknown };
    // A LangChain tool is converted explicitly, so its conversion (schema, results) is visible and typed.
    if (isLangChainTool(t)) {
      fail(
        `tools[${i}] ("${String(tool.name)}") is a LangChain tool; convert it with fromLangChainTool(tool) ` +
          `(or fromLangChainTools(tools) for a list or toolkit) from '@rxscope/core/langchain'.`,
        what,
      );
    }
    if (
      typeof t !== 'object' ||
      t === null ||
      typeof tool.name !== 'string' ||
      typeof tool.schema !== 'object' ||
      !tool.inputSchema
    ) {
      fail(
        `tools[${i}] is not a tool (${describe(t)}); build tools with defineTool({ name, description, input, execute }).`,
        what,
      );
    }
  });
}

function isLangChainTool(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || 'inputSchema' in value) return false;
  const candidate = value as { lc_namespace?: unknown; invoke?: unknown; schema?: unknown };
  return (
    (Array.isArray(candidate.lc_namespace) && candidate.lc_namespace.includes('tools')) ||
    (typeof candidate.invoke === 'function' && typeof candidate.schema === 'object' && candidate.schema !== null)
  );
}

function checkCount(name: string, value: unknown, min: number): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    fail(`${name} must be an integer >= ${min}, got ${describe(value)}.`);
  }
}

function checkString(name: string, value: unknown, allowEmpty: boolean): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || (!allowEmpty && value === '')) {
    fail(`${name} must be a ${allowEmpty ? '' : 'non-empty '}string, got ${describe(value)}.`);
  }
}

/**
 * Checks the options of `new Agent(...)` before anything is built, so a misconfigured agent fails
 * at construction with the option named (not on the first call with "reading 'modelName'").
 * Throws {@link AgentUsageError}.
 *
 * @example
 * ```ts
 * validateAgentOptions({ model: 'gpt-4o' }); // throws: model must be a ChatModel (...), got the string "gpt-4o" (...)
 * ```
 */
export function validateAgentOptions(options: unknown): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    fail(`new Agent() takes one options object such as { model, tools, middlewares }, got ${describe(options)}.`);
  }
  const o = options as Record<string, unknown>;
  checkOptionKeys('Agent', o, OPTIONS, {
    error: (code, _option, message) =>
      code === 'unknown_option'
        ? new UnknownAgentOptionError(`Invalid agent options: ${message}`)
        : new AgentUsageError(`Invalid agent options: ${message}`),
  });
  checkModel(o['model']);
  checkString('name', o['name'], false);
  checkString('sysPrompt', o['sysPrompt'], true);
  checkString('sessionId', o['sessionId'], false);
  checkTools(o['tools']);
  checkMiddlewares(o['middlewares']);
  checkCount('maxIters', o['maxIters'], 0);
  checkCount('maxConcurrentTools', o['maxConcurrentTools'], 1);
  const whilePending = o['whilePending'];
  if (whilePending !== undefined && whilePending !== 'reject-pending' && whilePending !== 'refuse') {
    fail(`whilePending must be 'reject-pending' or 'refuse', got ${describe(whilePending)}.`);
  }
  const onError = o['onBackgroundError'];
  if (onError !== undefined && typeof onError !== 'function')
    fail(`onBackgroundError must be a function, got ${describe(onError)}.`);
  const store = o['store'] as { load?: unknown } | undefined;
  if (store !== undefined && (typeof store !== 'object' || store === null))
    fail(`store must be a SessionStore, got ${describe(store)}.`);
  if (store !== undefined && o['sessionId'] === undefined) {
    fail('an agent with a session store needs a sessionId (the key its state is stored under).');
  }
  checkCheckpoints(o['checkpoints']);
}

/** `checkpoints`: a boolean or `{ leaseMs }`. */
function checkCheckpoints(value: unknown): void {
  if (value === undefined || typeof value === 'boolean') return;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(`checkpoints must be true, false or { leaseMs }, got ${describe(value)}.`);
  const o = value as Record<string, unknown>;
  checkOptionKeys('Agent.checkpoints', o, optionKeys<CheckpointOptions>({ leaseMs: true }), {
    foreign: { lease: 'leaseMs', ttl: 'leaseMs', leaseTimeoutMs: 'leaseMs', timeoutMs: 'leaseMs' },
    error: (code, _option, message) =>
      code === 'unknown_option'
        ? new UnknownAgentOptionError(`Invalid agent options: ${message}`)
        : new AgentUsageError(`Invalid agent options: ${message}`),
  });
  const lease = o['leaseMs'];
  if (lease !== undefined && (typeof lease !== 'number' || !Number.isFinite(lease) || lease < 100 || lease > 3_600_000))
    fail(`checkpoints.leaseMs must be a number of milliseconds from 100 to 3,600,000, got ${describe(lease)}.`);
}
