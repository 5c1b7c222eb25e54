import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import picomatch from 'picomatch';
import { checkOptionKeys, optionKeys, type PermissionRule } from '@rxscope/core';
import { McpMiddleware, type McpServerConfig } from '@rxscope/middleware-builtin/mcp';

/**
 * The workspace's `tools.json`: MCP servers (the `mcpServers` shape MCP hosts use) and lists of
 * rxscope tool names (globs allowed, e.g. `files__read_*`):
 * - `deny`: never offered to the model;
 * - `allow`: run without asking (an allow rule);
 * - `ask`: always ask a person first (an ask rule).
 *
 * @example
 * ```json
 * {
 *   "mcpServers": {
 *     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] },
 *     "tickets": { "url": "https://tickets.example.com/mcp", "headers": { "authorization": "Bearer ${TICKETS_TOKEN}" } }
 *   },
 *   "allow": ["files__read_*", "files__list_*"],
 *   "ask": ["tickets__*"],
 *   "deny": ["files__move_file"]
 * }
 * ```
 */
export interface ToolsJson {
  readonly mcpServers?: Readonly<Record<string, McpServerConfig>>;
  readonly allow?: readonly string[];
  readonly ask?: readonly string[];
  readonly deny?: readonly string[];
}

/** What {@link loadWorkspaceMcp} made of a workspace's `tools.json`. */
export interface WorkspaceMcp {
  /** Pass it in `middlewares`: its tools are the servers' tools, minus the denied ones. */
  readonly middleware: McpMiddleware;
  /** Rules from `allow` and `ask`: add them to `permissions.rules`. */
  readonly rules: readonly PermissionRule[];
  /** Closes every server connection. */
  close(): Promise<void>;
}

/** Options of {@link loadWorkspaceMcp}. */
export interface LoadWorkspaceMcpOptions {
  /** Values for `${NAME}` in the file's strings. Default: `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** File name inside the workspace. Default `tools.json`. */
  readonly file?: string;
}

const OPTION_KEYS = optionKeys<LoadWorkspaceMcpOptions>({ env: true, file: true });

/**
 * Reads `tools.json` from a workspace and connects its MCP servers. `${NAME}` in any string is
 * replaced from the environment (a missing variable is an error naming it), so tokens stay out
 * of the file; a stdio server's `cwd` defaults to the workspace. Resolves `undefined` when the
 * workspace has no such file. A malformed file is refused with an error naming the field.
 *
 * @example
 * ```ts
 * const mcp = await loadWorkspaceMcp('./ws');
 * const agent = createHarnessAgent({
 *   ...presets.coding(), model, workspace: './ws',
 *   middlewares: mcp ? [mcp.middleware] : [],
 *   permissions: { rules: [...(mcp?.rules ?? [])] },
 * });
 * // ... on shutdown
 * await mcp?.close();
 * ```
 */
export async function loadWorkspaceMcp(
  workspace: string,
  options: LoadWorkspaceMcpOptions = {},
): Promise<WorkspaceMcp | undefined> {
  checkOptionKeys('loadWorkspaceMcp', options, OPTION_KEYS);
  const root = resolve(workspace);
  const path = join(root, options.file ?? 'tools.json');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`${path}: not valid JSON (${(e as Error).message})`, { cause: e });
  }
  const config = checkToolsJson(path, expandVariables(path, parsed, options.env ?? process.env));
  const servers = Object.fromEntries(
    Object.entries(config.mcpServers ?? {}).map(([name, server]) => [
      name,
      'url' in server ? server : { cwd: root, ...server },
    ]),
  );
  const denied = config.deny?.length ? picomatch([...config.deny]) : undefined;
  const middleware = await McpMiddleware.connect({
    servers,
    // The servers may work in the workspace: it is their root (MCP roots).
    roots: [{ uri: pathToFileURL(root).href, name: 'workspace' }],
    ...(denied ? { filter: (name: string) => !denied(name) } : {}),
  });
  const rules: PermissionRule[] = [
    ...(config.ask ?? []).map((tool): PermissionRule => ({
      behavior: 'ask',
      tool,
      reason: `${path} asks before ${tool}`,
    })),
    ...(config.allow ?? []).map((tool): PermissionRule => ({ behavior: 'allow', tool })),
  ];
  return { middleware, rules, close: () => middleware.close() };
}

function checkToolsJson(path: string, value: unknown): ToolsJson {
  const fail = (what: string): never => {
    throw new Error(`${path}: ${what}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail('expected an object with "mcpServers", "allow", "ask", "deny".');
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) {
    if (!['mcpServers', 'allow', 'ask', 'deny', '$schema'].includes(key))
      fail(`unknown field "${key}" (expected mcpServers, allow, ask, deny).`);
  }
  const servers = v['mcpServers'];
  if (servers !== undefined && (typeof servers !== 'object' || servers === null || Array.isArray(servers))) {
    fail('"mcpServers" must be an object of servers by name.');
  }
  for (const key of ['allow', 'ask', 'deny'] as const) {
    const list = v[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((x) => typeof x === 'string')))
      fail(`"${key}" must be an array of tool names.`);
  }
  return v;
}

/** Replaces `${NAME}` in every string of the value. */
function expandVariables(path: string, value: unknown, env: Readonly<Record<string, string | undefined>>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const v = env[name];
      if (v === undefined)
        throw new Error(`${path}: the environment variable ${name} is not set (used as \${${name}}).`);
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((x) => expandVariables(path, x, env));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, expandVariables(path, x, env)]));
  }
  return value;
}
