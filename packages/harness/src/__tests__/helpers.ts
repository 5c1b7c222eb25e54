// Test helpers shared by the harness specs.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Agent,
  type AgentEvent,
  isEvent,
  type ReplyInput,
  type Tool,
  type ToolResultEndEvent,
} from '@rxscope/core';
import { validateToolInput } from '@rxscope/core/internal';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { ofType, replyEndOf, runReply } from '@rxscope/core/testing';
import type { OpenAITestServer, RecordedRequest } from '@rxscope/core/testing/node';

export { ofType } from '@rxscope/core/testing';

/** A fresh temporary folder (real path); removed by the returned `cleanup`. */
export function tempDir(prefix = 'rxscope-harness-'): { path: string; cleanup: () => void } {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** The values of the CUSTOM events called `name`. */
export const customValues = <T = unknown>(events: readonly AgentEvent[], name: string): T[] =>
  events
    .filter(isEvent('CUSTOM'))
    .filter((e) => e.name === name)
    .map((e) => e.value as T);

/** The TOOL_RESULT_END of a call, by tool-call id. */
export function resultOf(events: readonly AgentEvent[], toolCallId: string): ToolResultEndEvent {
  const end = ofType(events, 'TOOL_RESULT_END').find((e) => e.toolCallId === toolCallId);
  if (!end)
    throw new Error(
      `no result for ${toolCallId}; results: ${ofType(events, 'TOOL_RESULT_END')
        .map((e) => e.toolCallId)
        .join(', ')}`,
    );
  return end;
}

/** Text of a result. */
export const textOfResult = (end: ToolResultEndEvent): string =>
  end.output.map((b) => (b.type === 'text' ? b.text : '')).join('');

/** Collects one whole reply (the testing kit's `runReply`: grammar and conversation checked). */
export async function run(agent: Agent, input: ReplyInput = 'hi') {
  const events = await runReply(agent, input);
  return { events, end: replyEndOf(events) };
}

/** The real OpenAIChatModel, talking to the test server. */
export const testServerModel = (server: OpenAITestServer) =>
  new OpenAIChatModel({
    model: 'gpt-test',
    apiKey: 'sk-test',
    baseURL: server.url,
    configuration: { logLevel: 'off' },
  });

/** Closes the test server once every connection to it has ended. */
export async function closeTestServer(server: OpenAITestServer): Promise<void> {
  try {
    await server.waitForConnections(0, 2000);
  } finally {
    await server.close();
  }
}

/** The system prompt a recorded request carried. */
export const systemPromptOf = (request: RecordedRequest): string => {
  const first = request.body.messages?.[0];
  return first?.role === 'system' && typeof first.content === 'string' ? first.content : '';
};

/** The tool results a recorded request carried, by tool-call id. */
export const wireToolResults = (request: RecordedRequest): Map<string, string> =>
  new Map(
    (request.body.messages ?? [])
      .filter((m) => m.role === 'tool' && m.tool_call_id)
      .map((m) => [m.tool_call_id!, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)]),
  );

/** A tool's arguments validated by its schema, as the loop validates a call: throws the model's message when they fail. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function toolInput(tool: Tool, input: unknown): any {
  const checked = validateToolInput(tool, input);
  if (!checked.ok) throw new Error(checked.message);
  return checked.input;
}

/** True when a tool's schema accepts these arguments. */
export function acceptsInput(tool: Tool, input: unknown): boolean {
  return validateToolInput(tool, input).ok;
}
