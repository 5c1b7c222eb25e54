import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { RxscopeError } from '@rxscope/core';
import { isHttpServer, type McpServerConfig } from './server-config.js';

/**
 * The error of a connection or call an MCP server refused for want of authorization (no token,
 * an expired token whose refresh was refused): it names the server.
 *
 * @example
 * ```ts
 * new McpUnauthorizedError('remote', 'Unauthorized').message; // 'MCP server "remote" refused the client: not authorized (Unauthorized)'
 * ```
 */
export class McpUnauthorizedError extends RxscopeError {
  override readonly name = 'McpUnauthorizedError';
  readonly code = 'unauthorized';
  constructor(
    readonly server: string,
    reason: string,
  ) {
    super(`MCP server "${server}" refused the client: not authorized (${reason})`);
  }
}

/**
 * The authorization code of the OAuth flow a failed connection started, when its provider can
 * give one (`SessionStoreOAuthProvider` with `authorize`).
 */
export function authorizationCodeFor(config: McpServerConfig, error: unknown): Promise<string> | undefined {
  if (!(error instanceof UnauthorizedError) || !isHttpServer(config)) return undefined;
  const provider = config.authProvider as { takeAuthorizationCode?: () => Promise<string> | undefined } | undefined;
  return provider?.takeAuthorizationCode?.();
}

/** The SDK transport of a server entry: Streamable HTTP (with its headers and OAuth provider) or stdio. */
export function createTransport(config: McpServerConfig): Transport {
  if (isHttpServer(config)) {
    return new StreamableHTTPClientTransport(new URL(config.url), {
      ...(config.headers ? { requestInit: { headers: { ...config.headers } } } : {}),
      ...(config.authProvider ? { authProvider: config.authProvider } : {}),
    });
  }
  return new StdioClientTransport({
    command: config.command,
    args: [...(config.args ?? [])],
    env: { ...getDefaultEnvironment(), ...config.env },
    ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
    stderr: config.stderr ?? 'inherit',
  });
}
