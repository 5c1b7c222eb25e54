import type { Agent } from '@rxscope/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ElicitResultSchema,
  type ClientCapabilities,
  type LoggingLevel,
  LoggingLevelSchema,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { runAgentForCall } from './agent-tool-handler.js';
import { confirmByElicitation } from './elicit-confirmation.js';

/** What one MCP session serves: the tool's name and text, and the session's agent. */
export interface AgentServerSpec {
  readonly toolName: string;
  readonly description: string;
  readonly version: string;
  /** The agent of this MCP session (created on first use when it comes from a factory). */
  readonly agent: () => Promise<Agent>;
}

/** True when the client can answer a form-mode elicitation (`elicitation: {}` means form, per the spec). */
const canElicit = (caps: ClientCapabilities | undefined): boolean => {
  const e = caps?.elicitation;
  return e !== undefined && (e['form'] !== undefined || Object.keys(e).length === 0);
};

/**
 * One MCP server (one per session) offering the agent as a tool and its session as a resource,
 * with the `logging` capability (the reply's tool calls and end, at the level the client set)
 * and confirmations asked of the client by elicitation when it declares it.
 */
export function agentServer(spec: AgentServerSpec): McpServer {
  const { toolName } = spec;
  const server = new McpServer({ name: toolName, version: spec.version }, { capabilities: { logging: {} } });
  // The client's level (logging/setLevel); kept here so log messages go out on the call's own stream.
  let level: LoggingLevel = 'info';
  const rank = (l: LoggingLevel) => LoggingLevelSchema.options.indexOf(l);
  server.server.setRequestHandler(SetLevelRequestSchema, (request) => {
    level = request.params.level;
    return {};
  });
  server.registerTool(
    toolName,
    {
      description: spec.description,
      inputSchema: { message: z.string().min(1).describe('What to ask or tell the agent.') },
      annotations: { title: `${toolName} agent`, readOnlyHint: false, openWorldHint: true },
    },
    async ({ message }, extra) => {
      const agent = await spec.agent();
      const elicit = canElicit(server.server.getClientCapabilities());
      return runAgentForCall(agent, message, {
        signal: extra.signal,
        sendNotification: extra.sendNotification,
        ...(extra._meta?.progressToken !== undefined ? { progressToken: extra._meta.progressToken } : {}),
        ...(elicit
          ? {
              confirm: (calls) =>
                confirmByElicitation(calls, (params) =>
                  extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, {
                    signal: extra.signal,
                    timeout: 24 * 3600_000, // a person answers; the call's cancellation ends the wait
                  }),
                ),
            }
          : {}),
        log: (l, data) => {
          if (rank(l) < rank(level)) return;
          extra
            .sendNotification({ method: 'notifications/message', params: { level: l, logger: toolName, data } })
            .catch(() => undefined); // a caller that went away does not fail the reply
        },
      });
    },
  );
  const uri = `agent://${encodeURIComponent(toolName)}/session`;
  server.registerResource(
    'session',
    uri,
    {
      title: `${toolName}: session`,
      description: "The agent's saved state: its conversation and settings (JSON).",
      mimeType: 'application/json',
    },
    async () => ({
      contents: [{ uri, mimeType: 'application/json', text: JSON.stringify((await spec.agent()).saveState()) }],
    }),
  );
  return server;
}
