// A loopback OAuth 2.1 authorization server built from the official SDK's own server-side auth
// router (mcpAuthRouter: metadata, dynamic client registration, authorization with PKCE, token,
// refresh), protecting an MCP server (McpServer over Streamable HTTP, requireBearerAuth). The
// in-memory provider approves every authorization at once and issues short-lived tokens.
import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** What the authorization server saw, for the test to check. */
export interface OAuthLog {
  registrations: number;
  challengeMethods: string[];
  codeExchanges: number;
  refreshes: number;
  refusedRefreshes: number;
}

class InMemoryProvider implements OAuthServerProvider {
  readonly log: OAuthLog = {
    registrations: 0,
    challengeMethods: [],
    codeExchanges: 0,
    refreshes: 0,
    refusedRefreshes: 0,
  };
  /** Lifetime of access tokens. */
  accessTtlMs = 60_000;
  refuseRefresh = false;
  private readonly clients = new Map<string, OAuthClientInformationFull>();
  private readonly codes = new Map<string, { client: string; params: AuthorizationParams }>();
  private readonly access = new Map<string, { client: string; expiresAt: number }>();
  private readonly refresh = new Map<string, string>();

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: (id) => this.clients.get(id),
      registerClient: (client) => {
        this.log.registrations++;
        const full = { ...client, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) };
        this.clients.set(full.client_id, full);
        return full;
      },
    };
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const code = randomUUID();
    this.codes.set(code, { client: client.client_id, params });
    this.log.challengeMethods.push('S256'); // the router accepts only S256 challenges
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(target.toString());
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const entry = this.codes.get(code);
    if (!entry) throw new InvalidGrantError('unknown authorization code');
    return entry.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const entry = this.codes.get(code);
    if (!entry || entry.client !== client.client_id) throw new InvalidGrantError('unknown authorization code');
    this.codes.delete(code);
    this.log.codeExchanges++;
    return this.issue(client.client_id);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    if (this.refuseRefresh || this.refresh.get(refreshToken) !== client.client_id) {
      this.log.refusedRefreshes++;
      throw new InvalidGrantError('the refresh token was revoked');
    }
    this.refresh.delete(refreshToken);
    this.log.refreshes++;
    return this.issue(client.client_id);
  }

  /** Ends every access token issued so far, as their lifetime running out would. */
  expireAll(): void {
    for (const entry of this.access.values()) entry.expiresAt = 0;
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const entry = this.access.get(token);
    if (!entry || entry.expiresAt < Date.now()) throw new InvalidTokenError('the token expired or is unknown');
    return { token, clientId: entry.client, scopes: [], expiresAt: Math.floor(entry.expiresAt / 1000) };
  }

  private issue(client: string): OAuthTokens {
    const access = randomUUID();
    const refresh = randomUUID();
    this.access.set(access, { client, expiresAt: Date.now() + this.accessTtlMs });
    this.refresh.set(refresh, client);
    return {
      access_token: access,
      token_type: 'bearer',
      expires_in: Math.ceil(this.accessTtlMs / 1000),
      refresh_token: refresh,
    };
  }
}

/** The running servers: `mcpUrl` needs a bearer token that `provider` issued. */
export interface OAuthTestServer {
  readonly mcpUrl: string;
  readonly provider: InMemoryProvider;
  close(): Promise<void>;
}

export async function startOAuthTestServer(): Promise<OAuthTestServer> {
  const app = express();
  const http: HttpServer = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const mcpUrl = new URL('/mcp', base);
  const provider = new InMemoryProvider();
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl }));
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
  });
  app.all('/mcp', express.json(), bearer, (req: Request, res: Response) => {
    const id = req.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? sessions.get(id) : undefined;
    if (existing) return void existing.handleRequest(req, res, req.body);
    const server = new McpServer({ name: 'protected', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Says which OAuth client called.' }, (extra) => ({
      content: [{ type: 'text', text: `client ${extra.authInfo?.clientId ?? '(none)'}` }],
    }));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res, req.body));
  });
  return {
    mcpUrl: mcpUrl.href,
    provider,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
