/**
 * The session agent every worker builds for a job: a harness agent whose state lives in the shared
 * session store and whose inbox is on Redis, so the job can run on any worker and a message pushed
 * from the front joins the running reply. Its tools: `ship_order` (asks for confirmation) and
 * `check_stock` (slow, so a message can arrive while it runs).
 */
import { join } from 'node:path';
import { type Agent, defineTool, type SessionStore } from '@rxscope/core';
import type { OpenAIChatModel } from '@rxscope/core/openai';
import { createHarnessAgent, presets, type MessageBus } from '@rxscope/harness';
import { z } from 'zod';

export interface SessionAgentParts {
  readonly model: OpenAIChatModel;
  readonly store: SessionStore;
  readonly bus: MessageBus;
  /** Each session's workspace is `<workDir>/<sessionId>`. */
  readonly workDir: string;
  /** How long `check_stock` takes (ms). */
  readonly stockCheckMs: number;
}

const shipOrder = defineTool({
  name: 'ship_order',
  description: 'Ships an order to the customer. Needs the user to confirm.',
  input: z.object({ order: z.string() }),
  needsApproval: true,
  execute: ({ order }) => `order ${order} shipped`,
});

export function sessionAgent(parts: SessionAgentParts, sessionId: string): Agent {
  const checkStock = defineTool({
    name: 'check_stock',
    description: 'Checks the stock of an item in the warehouse.',
    input: z.object({ item: z.string() }),
    readOnly: true,
    execute: async ({ item }) => {
      await new Promise((r) => setTimeout(r, parts.stockCheckMs));
      return `${item}: 12 in stock`;
    },
  });
  // An Agent is one conversation: one per session, built by the worker for the job's session.
  return createHarnessAgent({
    ...presets.minimal(),
    inbox: true,
    name: 'shop',
    sysPrompt: 'You run a small online shop.',
    model: parts.model,
    workspace: join(parts.workDir, sessionId),
    tools: [shipOrder, checkStock],
    store: parts.store,
    sessionId,
    bus: parts.bus,
  });
}
