import type {
  ActingInput,
  AgentInput,
  Middleware,
  ModelCallInput,
  ReasoningInput,
} from '../../middleware/middleware.js';
import { chainFor, type Chain } from '../../middleware/chain.js';
import { permissionChainFor, type PermissionChain } from '../../middleware/permission-chain.js';
import type { RuntimeContext } from '../../middleware/context.js';
import { ReplyContext } from './reply-context.js';

/** The composed chains of one middleware list, and its `onSystemPrompt` layers. */
export interface AgentChains {
  readonly agent: Chain<AgentInput>;
  readonly reasoning: Chain<ReasoningInput>;
  readonly acting: Chain<ActingInput>;
  readonly modelCall: Chain<ModelCallInput>;
  /** The `onCheckPermission` onion; `undefined` when no middleware has one (the engine decides alone). */
  readonly permission: PermissionChain | undefined;
  readonly promptLayers: readonly Middleware[];
}

interface Entry {
  readonly list: readonly Middleware[];
  /** The hook functions the chains were composed from (a middleware patched later gets new chains). */
  readonly hooks: readonly unknown[];
  readonly chains: AgentChains;
}

const HOOKS = ['onAgent', 'onReasoning', 'onActing', 'onModelCall', 'onCheckPermission', 'onSystemPrompt'] as const;
/** Entries kept per first middleware: a service builds its agents from a few stacks. */
const PER_KEY = 8;
const cache = new WeakMap<Middleware, Entry[]>();
function hooksOf(list: readonly Middleware[]): unknown[] {
  const out: unknown[] = [];
  // Compared by identity only, never called from here.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  for (const m of list) for (const h of HOOKS) out.push(m[h]);
  return out;
}

function compose(list: readonly Middleware[]): AgentChains {
  return {
    agent: chainFor(list, 'onAgent'),
    reasoning: chainFor(list, 'onReasoning', withEdits),
    acting: chainFor(list, 'onActing'),
    modelCall: chainFor(list, 'onModelCall'),
    permission: permissionChainFor(list),
    promptLayers: list.filter((m) => m.onSystemPrompt !== undefined),
  };
}

/**
 * What a reasoning layer passes to `next`, with the conversation's edits: an input that still
 * carries a view of the conversation handed out earlier gets the current one.
 */
function withEdits(ctx: RuntimeContext, input: ReasoningInput): ReasoningInput {
  const conversation = ctx instanceof ReplyContext ? ctx.conversationOfReply : undefined;
  return conversation ? conversation.refresh(input) : input;
}

const none = compose([]);

/**
 * The chains of a middleware list, composed once and shared by every agent built from the same
 * middlewares (in the same order, with the same hook functions). Chains are pure functions of
 * their layers and middlewares are stateless, so sharing them changes nothing but the cost: an
 * agent with 10 middlewares no longer composes (and holds) about 10 KB of closures of its own,
 * which matters to a service that keeps an agent per session.
 */
export function chainsFor(list: readonly Middleware[]): AgentChains {
  const key = list[0];
  if (key === undefined) return none;
  const hooks = hooksOf(list);
  const entries = cache.get(key) ?? [];
  const hit = entries.find(
    (e) =>
      e.list.length === list.length && e.hooks.every((h, i) => h === hooks[i]) && e.list.every((m, i) => m === list[i]),
  );
  if (hit) return hit.chains;
  const chains = compose(list);
  entries.unshift({ list: [...list], hooks, chains });
  if (entries.length > PER_KEY) entries.pop();
  cache.set(key, entries);
  return chains;
}
