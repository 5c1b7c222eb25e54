import { checkOptionKeys, OptionsError, optionKeys } from '@rxscope/core';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';

/** What every server entry may say besides how to reach it. */
export interface McpServerCommon {
  /** Only these tools of the server are offered (the server's own names). Default: all. */
  readonly include?: readonly string[];
  /** These tools of the server are never offered (the server's own names). */
  readonly exclude?: readonly string[];
  /**
   * Longest wait for one tool call, in ms; every progress notification restarts it. Default
   * 60,000. Cancel earlier with the call's signal (`TimeoutMiddleware`, an interrupt).
   */
  readonly timeoutMs?: number;
}

/**
 * A server started as a child process and spoken to over its stdin/stdout.
 *
 * @example
 * ```ts
 * const everything: McpStdioServer = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] };
 * ```
 */
export interface McpStdioServer extends McpServerCommon {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to a small safe default environment (PATH, HOME, ...), not to the whole of `process.env`. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Where the server's stderr goes. Default `'inherit'` (this process's stderr); `'ignore'` drops it. */
  readonly stderr?: 'inherit' | 'ignore';
}

/**
 * A server reached over Streamable HTTP.
 *
 * @example
 * ```ts
 * const remote: McpHttpServer = { url: 'http://127.0.0.1:3001/mcp', headers: { authorization: 'Bearer ...' } };
 * ```
 */
export interface McpHttpServer extends McpServerCommon {
  readonly url: string;
  /** Sent with every request (authorization, API keys). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * OAuth 2.1 for servers that require it (the SDK's `OAuthClientProvider`: PKCE, dynamic client
   * registration, refresh). `SessionStoreOAuthProvider` keeps the tokens in a session store.
   */
  readonly authProvider?: OAuthClientProvider;
}

/**
 * One MCP server: started as a process (`command`) or reached over HTTP (`url`).
 *
 * @example
 * ```ts
 * const servers: Record<string, McpServerConfig> = {
 *   files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', './data'] },
 *   remote: { url: 'http://127.0.0.1:3001/mcp' },
 * };
 * ```
 */
export type McpServerConfig = McpStdioServer | McpHttpServer;

/** Server names become tool-name prefixes, so they must be valid in a tool name. */
const SERVER_NAME = /^[a-zA-Z0-9-]([a-zA-Z0-9_-]*[a-zA-Z0-9-])?$/;

// The keys of each kind of entry, typed against its interface (a new field must be listed).
const STDIO_KEYS = optionKeys<McpStdioServer>({
  command: true,
  args: true,
  env: true,
  cwd: true,
  stderr: true,
  include: true,
  exclude: true,
  timeoutMs: true,
});
const HTTP_KEYS = optionKeys<McpHttpServer>({
  url: true,
  headers: true,
  authProvider: true,
  include: true,
  exclude: true,
  timeoutMs: true,
});

/** The config of a server that is reached over HTTP. */
export const isHttpServer = (config: McpServerConfig): config is McpHttpServer => 'url' in config;

/**
 * Checks one server entry and says exactly what is wrong, before anything is started: an
 * `OptionsError` (`@rxscope/core`) (`unknown_option` for a misspelt key, with "did you mean"; else
 * `invalid_option`).
 *
 * @example
 * ```ts
 * checkServerConfig('files', { command: '' }); // throws: MCP server "files": `command` must be a non-empty string.
 * ```
 */
export function checkServerConfig(name: string, config: unknown): asserts config is McpServerConfig {
  const fail = (what: string): never => {
    throw new OptionsError('invalid_option', `servers.${name}`, `MCP server "${name}": ${what}`);
  };
  if (!SERVER_NAME.test(name) || name.includes('__')) {
    fail('the name must be letters, digits, "-" or "_" (no "__", not at either end): it prefixes tool names.');
  }
  if (typeof config !== 'object' || config === null)
    return fail('expected an object with `command` (stdio) or `url` (Streamable HTTP).');
  const c = config as Record<string, unknown>;
  const hasCommand = 'command' in c;
  const hasUrl = 'url' in c;
  if (hasCommand === hasUrl)
    fail('give exactly one of `command` (a process spoken to over stdio) and `url` (Streamable HTTP).');
  checkOptionKeys(`MCP server "${name}"`, c, hasCommand ? STDIO_KEYS : HTTP_KEYS);
  if (hasCommand) {
    if (typeof c['command'] !== 'string' || !c['command'].trim()) fail('`command` must be a non-empty string.');
    if (c['args'] !== undefined && !isStringArray(c['args'])) fail('`args` must be an array of strings.');
    if (c['env'] !== undefined && !isStringRecord(c['env'])) fail('`env` must be an object of string values.');
    if (c['cwd'] !== undefined && typeof c['cwd'] !== 'string') fail('`cwd` must be a string.');
    if (c['stderr'] !== undefined && c['stderr'] !== 'inherit' && c['stderr'] !== 'ignore')
      fail('`stderr` must be "inherit" or "ignore".');
  } else {
    let url: URL | undefined;
    try {
      url = new URL(String(c['url']));
    } catch {
      fail(`\`url\` is not a valid URL: ${JSON.stringify(c['url'])}.`);
    }
    if (url && url.protocol !== 'http:' && url.protocol !== 'https:')
      fail(`\`url\` must be http(s), got ${url.protocol}`);
    if (c['headers'] !== undefined && !isStringRecord(c['headers']))
      fail('`headers` must be an object of string values.');
  }
  for (const key of ['include', 'exclude'] as const) {
    if (c[key] !== undefined && !isStringArray(c[key])) fail(`\`${key}\` must be an array of tool names.`);
  }
  const timeout = c['timeoutMs'];
  if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0)))
    fail('`timeoutMs` must be a positive number.');
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isStringRecord = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
