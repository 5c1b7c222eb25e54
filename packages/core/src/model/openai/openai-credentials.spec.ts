// The credentials an OpenAIChatModel sends never come back in its errors: a server that echoes
// the key into its error message (some proxies and gateways do) gets it replaced by [redacted].
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { streamFailure } from '../../__tests__/helpers.js';
import { ModelError } from '../model-error.js';
import { OpenAIChatModel } from './openai-chat-model.js';
import { credentialsOf } from './openai-credentials.js';

describe('credentials in model errors', () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await new Promise((resolve) => server!.close(resolve));
    server = undefined;
  });

  async function echoing(status: number): Promise<string> {
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(status, { 'content-type': 'application/json' });
      const sent = `${req.headers['authorization'] ?? ''} ${String(req.headers['x-api-key'] ?? '')}`;
      res.end(JSON.stringify({ error: { message: `Rejected credentials: ${sent}` } }));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  }

  it.each([401, 500])(
    'a %i whose body echoes the key: the ModelError says [redacted] and keeps its status and code',
    async (status) => {
      const model = new OpenAIChatModel({
        model: 'm',
        baseURL: await echoing(status),
        apiKey: 'sk-live-0123456789',
        configuration: { logLevel: 'off', defaultHeaders: { 'X-Api-Key': 'hdr-0123456789' } },
      });
      const error = await streamFailure(model);
      expect(error).toBeInstanceOf(ModelError);
      const e = error as ModelError;
      expect(e.message).toContain('Rejected credentials: Bearer [redacted] [redacted]');
      expect(`${e.message} ${e.stack} ${String(e.cause)}`).not.toMatch(/0123456789/);
      expect({ status: e.status, code: e.code }).toEqual({
        status,
        code: status === 401 ? 'unauthorized' : 'server_error',
      });
    },
  );

  it('takes the key from the options, the client configuration or the environment, and credential headers; not placeholders', () => {
    process.env['OPENAI_API_KEY'] = 'sk-env-0123456789';
    try {
      expect(credentialsOf({ model: 'm' })).toEqual(['sk-env-0123456789']);
      expect(credentialsOf({ model: 'm', apiKey: 'sk-opt-0123456789' })).toEqual(['sk-opt-0123456789']);
      expect(credentialsOf({ model: 'm', configuration: { apiKey: 'sk-cfg-0123456789' } })).toEqual([
        'sk-cfg-0123456789',
      ]);
      expect(
        credentialsOf({
          model: 'm',
          apiKey: null,
          configuration: {
            defaultHeaders: { Authorization: 'Bearer tok-0123456789', 'X-Trace': 'not-a-secret-at-all' },
          },
        }),
      ).toEqual(['Bearer tok-0123456789', 'tok-0123456789']);
      expect(credentialsOf({ model: 'm', apiKey: 'ollama' })).toEqual([]);
    } finally {
      delete process.env['OPENAI_API_KEY'];
    }
  });
});
