import {
  checkOptionKeys,
  optionKeys,
  OptionsError,
  type AgentStateSnapshot,
  SessionConflictError,
  type SessionStore,
  STATE_VERSION,
} from '@rxscope/core';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * Options of {@link SessionStoreOAuthProvider}.
 *
 * @example
 * ```ts
 * const options: SessionStoreOAuthOptions = { store, key: 'oauth:github-mcp', redirectUrl: 'http://127.0.0.1:8765/callback', authorize };
 * ```
 */
export interface SessionStoreOAuthOptions {
  /** Where the client registration, tokens and PKCE verifier are kept (any `SessionStore`: file, Redis, memory). */
  readonly store: SessionStore;
  /** The session id they are kept under (one per server and user). */
  readonly key: string;
  /** Where the authorization server sends the person back with the code. */
  readonly redirectUrl: string;
  /**
   * Sends the person to the authorization page (open a browser, print the link) and resolves
   * with the `code` the redirect brought back. Without it, `connect` fails with an `unauthorized`
   * error until tokens are in the store.
   */
  readonly authorize?: (url: URL) => Promise<string>;
  /** How the client registers itself (dynamic client registration). Default: a public client named `rxscope`. */
  readonly clientMetadata?: OAuthClientMetadata;
}

const KEYS = optionKeys<SessionStoreOAuthOptions>({
  store: true,
  key: true,
  redirectUrl: true,
  authorize: true,
  clientMetadata: true,
});

/** What is kept in the store, under `middlewareState.mcpOAuth`. */
interface Kept {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  verifier?: string;
}

/**
 * An OAuth client for MCP servers (the SDK's `OAuthClientProvider`) that keeps its client
 * registration, tokens and PKCE verifier in a rxscope `SessionStore`, so every process of a
 * deployment shares them and a restart keeps them. The SDK does the rest: discovery, dynamic
 * client registration, PKCE, the code exchange, and a refresh with the refresh token when the
 * server answers 401 (the new tokens are saved here). Tokens are secrets: use a store only
 * your service can read.
 *
 * @example
 * ```ts
 * const authProvider = new SessionStoreOAuthProvider({
 *   store: new FileSessionStore({ dir: './sessions' }),
 *   key: 'oauth:remote',
 *   redirectUrl: 'http://127.0.0.1:8765/callback',
 *   authorize: async (url) => { console.log(`Open ${url}`); return waitForCallbackCode(8765); },
 * });
 * const mcp = await McpMiddleware.connect({ servers: { remote: { url: 'https://mcp.example.com/mcp', authProvider } } });
 * ```
 */
export class SessionStoreOAuthProvider implements OAuthClientProvider {
  private kept: Kept | undefined;
  private version = 0;
  private pendingCode: Promise<string> | undefined;

  constructor(private readonly options: SessionStoreOAuthOptions) {
    checkOptionKeys('SessionStoreOAuthProvider', options, KEYS);
    if (typeof options.key !== 'string' || options.key === '') {
      throw new OptionsError(
        'invalid_option',
        'SessionStoreOAuthProvider.key',
        'SessionStoreOAuthProvider needs a key (a session id).',
      );
    }
    new URL(options.redirectUrl); // a bad URL is refused here, not at the first 401
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return (
      this.options.clientMetadata ?? {
        client_name: 'rxscope',
        redirect_uris: [this.options.redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }
    );
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    return (await this.load()).client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.update({ client });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.load()).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.update({ tokens });
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    await this.update({ verifier });
  }

  async codeVerifier(): Promise<string> {
    const verifier = (await this.load()).verifier;
    if (!verifier) throw new Error('No PKCE code verifier was saved for this authorization.');
    return verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const kept = { ...(await this.load()) };
    if (scope === 'all' || scope === 'client') delete kept.client;
    if (scope === 'all' || scope === 'tokens') delete kept.tokens;
    if (scope === 'all' || scope === 'verifier') delete kept.verifier;
    await this.write(kept);
  }

  redirectToAuthorization(url: URL): void {
    // The person is sent to the page; the code comes back through `authorize`.
    this.pendingCode = this.options.authorize?.(url);
    this.pendingCode?.catch(() => undefined);
  }

  /**
   * The code of the authorization the SDK just started (`redirectToAuthorization`), when
   * `authorize` was given; `McpMiddleware.connect` completes the flow with it and connects again.
   */
  takeAuthorizationCode(): Promise<string> | undefined {
    const code = this.pendingCode;
    this.pendingCode = undefined;
    return code;
  }

  private async load(): Promise<Kept> {
    if (this.kept) return this.kept;
    const stored = await this.options.store.load(this.options.key);
    this.version = stored?.version ?? 0;
    this.kept = (stored?.state.middlewareState['mcpOAuth'] as Kept | undefined) ?? {};
    return this.kept;
  }

  private async update(change: Kept): Promise<void> {
    await this.write({ ...(await this.load()), ...change });
  }

  private async write(kept: Kept): Promise<void> {
    const state: AgentStateSnapshot = {
      version: STATE_VERSION,
      agentName: 'mcp-oauth',
      sessionId: this.options.key,
      context: [],
      middlewareState: { mcpOAuth: kept },
      permissions: { mode: 'default', rules: [] },
    };
    try {
      this.version = await this.options.store.save(this.options.key, state, this.version);
    } catch (e) {
      if (!(e instanceof SessionConflictError)) throw e;
      // Another process saved meanwhile: ours is the newer change, written over its version.
      this.kept = undefined;
      await this.load();
      this.version = await this.options.store.save(this.options.key, state, this.version);
    }
    this.kept = kept;
  }
}
