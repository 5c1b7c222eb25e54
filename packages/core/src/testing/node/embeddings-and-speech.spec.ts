import { OpenAIEmbeddings } from '@langchain/openai';
import {
  startOpenAITestServer,
  testEmbedding,
  testSpeechWav,
  TEST_SPEECH_SAMPLE_RATE,
  type OpenAITestServer,
} from './index.js';

/** POSTs JSON to one of the server's routes. */
const post = (server: OpenAITestServer, path: string, body: object) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    body: JSON.stringify(body),
  });

const cosine = (a: readonly number[], b: readonly number[]) => a.reduce((s, v, i) => s + v * b[i]!, 0);

describe('OpenAI test server: embeddings and speech', () => {
  let server: OpenAITestServer;
  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('serves deterministic embeddings to the real OpenAIEmbeddings client (base64 on the wire)', async () => {
    const embeddings = new OpenAIEmbeddings({
      model: 'text-embedding-3-small',
      apiKey: 'sk-test',
      configuration: { baseURL: server.url },
    });
    const [refund, shipping] = await embeddings.embedDocuments([
      'Refunds are paid within 14 days.',
      'Shipping takes three days.',
    ]);
    const query = await embeddings.embedQuery('How many days until refunds are paid?');

    expect(refund).toEqual(testEmbedding('Refunds are paid within 14 days.'));
    expect(query).toEqual(testEmbedding('How many days until refunds are paid?'));
    expect(refund).toHaveLength(256);
    expect(cosine(refund!, refund!)).toBeCloseTo(1, 5);
    // The query shares more words with the refund sentence than with the shipping one.
    expect(cosine(query, refund!)).toBeGreaterThan(cosine(query, shipping!) + 0.2);
    const body = server.requests[0]!.body;
    expect(body).toMatchObject({ model: 'text-embedding-3-small', encoding_format: 'base64' });
    expect(server.requests.every((r) => r.path === '/v1/embeddings' && r.completed)).toBe(true);
  });

  it('honours dimensions and float encoding, and rejects bad input with an OpenAI error body', async () => {
    const res = await post(server, '/embeddings', {
      model: 'm',
      input: ['a b', 'c'],
      dimensions: 8,
      encoding_format: 'float',
    });
    const json = (await res.json()) as {
      data: { index: number; embedding: number[] }[];
      usage: { prompt_tokens: number };
    };
    expect(json.data.map((d) => d.embedding)).toEqual([testEmbedding('a b', 8), testEmbedding('c', 8)]);
    expect(json.usage.prompt_tokens).toBeGreaterThan(0);
    const bad = await post(server, '/embeddings', { model: 'm', input: [] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: 'invalid_input', message: expect.stringMatching(/'input' must be/) },
    });
  });

  it('speaks a valid 16-bit mono 24 kHz WAV whose length follows the text', async () => {
    const speak = async (input: string) => {
      const res = await post(server, '/audio/speech', {
        model: 'tts-1',
        voice: 'alloy',
        input,
        response_format: 'wav',
      });
      expect(res.headers.get('content-type')).toBe('audio/wav');
      return Buffer.from(await res.arrayBuffer());
    };
    const short = await speak('Hi there.');
    const long = await speak('A much longer sentence to speak.');

    expect(short).toEqual(testSpeechWav('Hi there.'));
    expect(short.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(short.subarray(8, 12).toString('ascii')).toBe('WAVE');
    expect(short.readUInt16LE(22)).toBe(1); // mono
    expect(short.readUInt32LE(24)).toBe(TEST_SPEECH_SAMPLE_RATE);
    expect(short.readUInt16LE(34)).toBe(16);
    expect(short.readUInt32LE(40)).toBe(short.length - 44); // the data chunk fills the file
    expect(long.length).toBeGreaterThan(short.length);
    // Formats that need an encoder are refused with a message saying what to ask for.
    const mp3 = await post(server, '/audio/speech', { model: 'tts-1', voice: 'alloy', input: 'x' });
    expect(mp3.status).toBe(400);
    expect(JSON.stringify(await mp3.json())).toMatch(/ask for 'wav' or 'pcm'/);
  });
});
