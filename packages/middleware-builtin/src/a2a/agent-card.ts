import { A2A_PROTOCOL_VERSION, type AgentCard } from '@a2a-js/sdk';
import { checkOptionKeys, OptionsError, optionKeys } from '@rxscope/core';

/**
 * One skill the Agent Card advertises (what a caller may ask the agent for).
 *
 * @example
 * ```ts
 * const skill: A2aSkill = { id: 'orders', name: 'Order status', description: 'Where an order is.', examples: ['Where is order 42?'] };
 * ```
 */
export interface A2aSkill {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly tags?: readonly string[];
  readonly examples?: readonly string[];
}

/**
 * What the served Agent Card says of the agent; the rest (its URL and transport, streaming, the
 * input and output modes) is filled in by `serveAgentOverA2A`.
 *
 * @example
 * ```ts
 * const card: A2aCardOptions = { name: 'support', description: 'Answers questions about orders.' };
 * ```
 */
export interface A2aCardOptions {
  /** The agent's name. Default: the agent's own name (required with a factory). */
  readonly name?: string;
  /** What the agent does, for the callers (people and agents) that choose it. */
  readonly description: string;
  /** The agent's version. Default `'0.1.0'`. */
  readonly version?: string;
  /** What it can be asked for. Default: one skill named after the agent, with its description. */
  readonly skills?: readonly A2aSkill[];
  /** Who runs it. */
  readonly provider?: { readonly organization: string; readonly url: string };
  readonly documentationUrl?: string;
  readonly iconUrl?: string;
}

const CARD_KEYS = optionKeys<A2aCardOptions>({
  name: true,
  description: true,
  version: true,
  skills: true,
  provider: true,
  documentationUrl: true,
  iconUrl: true,
});
const SKILL_KEYS = optionKeys<A2aSkill>({ id: true, name: true, description: true, tags: true, examples: true });

/** The full Agent Card (A2A 1.0) for the options, served at `url` over JSON-RPC. */
export function buildAgentCard(options: A2aCardOptions, fallbackName: string | undefined, url: string): AgentCard {
  checkOptionKeys('serveAgentOverA2A card', options, CARD_KEYS);
  const refuse = (key: string, message: string) =>
    new OptionsError('invalid_option', `serveAgentOverA2A.card.${key}`, `serveAgentOverA2A: ${message}`);
  const name = options.name ?? fallbackName;
  if (!name) throw refuse('name', 'the card needs a `name` (with an agent factory there is no agent to take it from).');
  if (typeof options.description !== 'string' || !options.description.trim())
    throw refuse('description', 'the card needs a `description`: what the agent does, for those who choose it.');
  for (const skill of options.skills ?? []) checkOptionKeys('serveAgentOverA2A card skill', skill, SKILL_KEYS);
  const skills = options.skills ?? [{ id: name, name, description: options.description }];
  return {
    name,
    description: options.description,
    // 1.0, and 0.3 for the peers still on it (the SDK's compatibility layer translates).
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', protocolVersion: A2A_PROTOCOL_VERSION, tenant: '' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    ],
    provider: options.provider ? { ...options.provider } : undefined,
    version: options.version ?? '0.1.0',
    ...(options.documentationUrl ? { documentationUrl: options.documentationUrl } : {}),
    ...(options.iconUrl ? { iconUrl: options.iconUrl } : {}),
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      tags: [...(s.tags ?? [])],
      examples: [...(s.examples ?? [])],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    })),
    signatures: [],
  };
}
