// A LangChain model's credentials never come back in LangChainChatModel's errors either: a server
// that echoes the key it was sent gets it replaced by [redacted] (the wrapped model's declared
// secrets: `lc_secrets` fields and the environment variables they default to).
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { ChatOpenAI } from '@langchain/openai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { streamFailure } from '../../__tests__/helpers.js';
import { ModelError } from '../model-error.js';
import { LangChainChatModel } from './langchain-chat-model.js';
import { langChainCredentials } from './langchain-credentials.js';

describe('credentials in LangChainChatModel errors', () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await new Promise((resolve) => server!.close(resolve));
    server = undefined;
  });

  /** A server answering 401 with the Authorization header it received in the error message. */
  async function echoing(): Promise<string> {
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Rejected credentials: ${req.headers['authorization'] ?? ''}` } }));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  }

  it.each([
    ['given to the model', { apiKey: 'sk-live-0123456789' }],
    ['taken from OPENAI_API_KEY', {}],
  ])('a 401 whose body echoes the key (%s): the ModelError says [redacted] and keeps its status', async (_, fields) => {
    process.env['OPENAI_API_KEY'] = 'sk-live-0123456789';
    try {
      const chat = new ChatOpenAI({
        model: 'm',
        maxRetries: 0,
        ...fields,
        configuration: { baseURL: await echoing(), logLevel: 'off' },
      });
      const error = await streamFailure(new LangChainChatModel({ model: chat }));
      expect(error).toBeInstanceOf(ModelError);
      const e = error as ModelError;
      expect(e.message).toContain('Rejected credentials: Bearer [redacted]');
      expect(`${e.message} ${e.stack} ${String(e.cause)}`).not.toMatch(/0123456789/);
      expect({ status: e.status, code: e.code }).toEqual({ status: 401, code: 'unauthorized' });
    } finally {
      delete process.env['OPENAI_API_KEY'];
    }
  });

  it('reads the secrets a model declares, and finds none in a model that declares none', () => {
    expect(langChainCredentials(new ChatOpenAI({ model: 'm', apiKey: 'sk-opt-0123456789' }))).toEqual([
      'sk-opt-0123456789',
    ]);
    // A nested field and the environment variable a model declares for it.
    class Gateway extends FakeListChatModel {
      auth = { token: 'gw-token-0123456789' };
      override get lc_secrets(): Record<string, string> {
        return { 'auth.token': 'GATEWAY_TOKEN' };
      }
    }
    process.env['GATEWAY_TOKEN'] = 'gw-env-012345';
    try {
      expect(langChainCredentials(new Gateway({ responses: ['a'] }))).toEqual(['gw-token-0123456789', 'gw-env-012345']);
    } finally {
      delete process.env['GATEWAY_TOKEN'];
    }
    expect(langChainCredentials(new FakeListChatModel({ responses: ['a'] }))).toEqual([]);
    expect(langChainCredentials(new ChatOpenAI({ model: 'm', apiKey: 'ollama' }))).toEqual([]);
  });
});
