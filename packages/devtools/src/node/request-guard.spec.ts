import { request } from 'node:http';
import { DevtoolsRecorder } from '../index.js';
import { listen } from '../__tests__/helpers.js';
import { createDevtoolsHandler } from './index.js';

/** A raw request, so that Host, Origin and forwarding headers are exactly what an attacker sends. */
function send(
  url: string,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<{ status: number; body: { code?: string; message?: string } }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text || '{}') as { code?: string } }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('createDevtoolsHandler against requests that reach loopback by a detour', () => {
  const replay = { agent: () => undefined as never };
  let server: Awaited<ReturnType<typeof listen>>;
  let port: string;
  beforeAll(async () => {
    server = await listen(createDevtoolsHandler({ recorder: new DevtoolsRecorder(), replay }));
    port = new URL(server.url).port;
  });
  afterAll(() => server.close());

  it('serves loopback host names', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `app.localhost:${port}`, `[::1]:${port}`])
      expect([host, (await send(server.url, '/api/replies', { host })).status]).toEqual([host, 200]);
  });

  it('refuses a request relayed by a reverse proxy on the same machine (forwarding headers)', async () => {
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const res = await send(server.url, '/api/replies', { [header]: '203.0.113.9' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'devtools_forbidden', message: expect.stringContaining(header) });
    }
  });

  it('refuses DNS rebinding: a page of another name that now resolves to 127.0.0.1', async () => {
    const res = await send(server.url, '/api/replies', { host: `evil.example:${port}` });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('DNS rebinding');
  });

  it('refuses a cross-site POST, and a POST that is not JSON (what a form of another site sends)', async () => {
    const cassette = JSON.stringify({ version: 1, calls: [] });
    const crossSite = await send(
      server.url,
      '/api/replay',
      { origin: 'https://evil.example', 'content-type': 'application/json' },
      'POST',
      cassette,
    );
    expect(crossSite).toMatchObject({ status: 403, body: { code: 'devtools_forbidden' } });
    const form = await send(server.url, '/api/replay', { 'content-type': 'text/plain' }, 'POST', cassette);
    expect(form).toMatchObject({ status: 415, body: { code: 'devtools_json_only' } });
    // The devtools' own page passes both checks and reaches the route (which then reads the cassette).
    const own = await send(
      server.url,
      '/api/replay',
      { origin: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}`, 'content-type': 'application/json' },
      'POST',
      '{}',
    );
    expect(own).toMatchObject({ status: 400, body: { code: 'devtools_cassette_invalid' } });
  });

  it('leaves proxies and host names to the user once "allow" is given', async () => {
    const widened = await listen(createDevtoolsHandler({ recorder: new DevtoolsRecorder(), allow: ['10.0.0.8'] }));
    try {
      const proxied = await send(widened.url, '/api/replies', {
        'x-forwarded-for': '10.0.0.8',
        host: 'devtools.internal',
      });
      expect(proxied.status).toBe(200);
    } finally {
      await widened.close();
    }
  });
});
