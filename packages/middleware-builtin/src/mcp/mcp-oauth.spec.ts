import { Agent, type AgentEvent, InMemorySessionStore } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, ofType, run, testServerModel } from '../__tests__/helpers.js';
import { startOAuthTestServer, type OAuthTestServer } from './__tests__/oauth-server.js';
import { McpMiddleware, McpUnauthorizedError, SessionStoreOAuthProvider } from './index.js';

const resultOf = (events: readonly AgentEvent[]) => ofType(events, 'TOOL_RESULT_END')[0]!;
const textOf = (events: readonly AgentEvent[]) =>
  resultOf(events)
    .output.map((b) => (b.type === 'text' ? b.text : ''))
    .join('');

/**
 * OAuth 2.1 against a loopback authorization server made of the SDK's own mcpAuthRouter (dynamic
 * client registration, PKCE, token and refresh endpoints) protecting an McpServer: the first
 * connection authorizes, an expired token is refreshed mid-session, a refused refresh fails the
 * call with an `unauthorized` error naming the server while the reply goes on.
 */
describe('McpMiddleware: OAuth', () => {
  jest.setTimeout(60_000);
  let auth: OAuthTestServer;
  let model: OpenAITestServer;
  const store = new InMemorySessionStore();
  let consent = true;
  const authorizations: URL[] = [];
  const provider = new SessionStoreOAuthProvider({
    store,
    key: 'oauth:protected',
    redirectUrl: 'http://127.0.0.1:1/callback',
    // The person consents: the authorization page redirects back with the code.
    authorize: async (url) => {
      authorizations.push(url);
      if (!consent) throw new Error('the person did not consent');
      const res = await fetch(url, { redirect: 'manual' });
      return new URL(res.headers.get('location')!).searchParams.get('code')!;
    },
  });
  let mcp: McpMiddleware;

  beforeAll(async () => {
    auth = await startOAuthTestServer();
    mcp = await McpMiddleware.connect({ servers: { remote: { url: auth.mcpUrl, authProvider: provider } } });
  });
  afterAll(async () => {
    await mcp?.close();
    await auth?.close();
  });
  beforeEach(async () => {
    model = await startOpenAITestServer();
  });
  afterEach(() => closeTestServer(model));

  const whoami = async () => {
    model.enqueue({ toolCalls: [{ name: 'remote__whoami', input: {} }] }, { text: 'Done.' });
    return run(new Agent({ model: testServerModel(model), middlewares: [mcp] }), 'Who am I?');
  };
  // Tokens live a minute; a test ends them at once, so a slow machine cannot expire one early.
  const expire = () => auth.provider.expireAll();

  it('the first connection registers the client, authorizes with PKCE, and keeps the tokens in the session store', async () => {
    expect(auth.provider.log).toMatchObject({ registrations: 1, codeExchanges: 1 });
    expect(authorizations[0]!.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizations[0]!.searchParams.get('code_challenge')).toBeTruthy();
    const stored = await store.load('oauth:protected');
    const kept = stored!.state.middlewareState['mcpOAuth'] as {
      tokens: { access_token: string };
      client: { client_id: string };
    };
    expect(kept.tokens.access_token).toEqual(expect.any(String));
    const { events } = await whoami();
    expect(textOf(events)).toBe(`client ${kept.client.client_id}`);
  });

  it('an expired token is refreshed mid-session and the call goes through', async () => {
    const before = (await provider.tokens())!.access_token;
    const refreshesBefore = auth.provider.log.refreshes;
    expire();
    const { events } = await whoami();
    expect(resultOf(events).status).toBe('success');
    expect(auth.provider.log.refreshes).toBe(refreshesBefore + 1);
    // The new tokens are in the store (another process would use them).
    const stored = await store.load('oauth:protected');
    const kept = stored!.state.middlewareState['mcpOAuth'] as { tokens: { access_token: string } };
    expect(kept.tokens.access_token).not.toBe(before);
  });

  it('a refused refresh fails the call with an unauthorized error naming the server; the reply goes on', async () => {
    auth.provider.refuseRefresh = true;
    consent = false;
    expire();
    const { events, end } = await whoami();
    expect(end.finishReason).toBe('completed');
    expect(resultOf(events).status).toBe('error');
    expect(textOf(events)).toContain('MCP server "remote" refused the client: not authorized');
    expect(auth.provider.log.refusedRefreshes).toBeGreaterThan(0);
    expect(new McpUnauthorizedError('remote', 'x').code).toBe('unauthorized');
  });

  it('a misspelt provider option is refused', () => {
    expect(
      () =>
        new SessionStoreOAuthProvider({
          store,
          key: 'k',
          redirectUrl: 'http://127.0.0.1/cb',
          autorize: () => '',
        } as never),
    ).toThrow(/did you mean "authorize"/);
  });
});
