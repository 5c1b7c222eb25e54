/// <reference types="node" />
// `POST /v1/embeddings` of the OpenAI-compatible test server: deterministic vectors that carry
// meaning (texts sharing words are close), so retrieval tests can assert which chunk is found.
import type { TestServerResponse } from './route-response.js';

/** Dimensions of a test embedding when the request does not ask for `dimensions`. */
export const TEST_EMBEDDING_DIMENSIONS = 256;

/** FNV-1a, 32 bits: a stable hash with no dependency. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The vector the test server returns for `text`: a hashed bag of its lower-cased words
 * (each word adds ±1 to one dimension), scaled to length 1. Texts that share words have a
 * higher cosine similarity, texts without a common word are close to orthogonal, and the same
 * text always gets the same vector. A text without words gets the first unit vector.
 *
 * @example
 * ```ts
 * const server = await startOpenAITestServer();
 * const embeddings = new OpenAIEmbeddings({ apiKey: 'sk-test', configuration: { baseURL: server.url } });
 * expect(await embeddings.embedQuery('refund policy')).toEqual(testEmbedding('refund policy'));
 * ```
 */
export function testEmbedding(text: string, dimensions: number = TEST_EMBEDDING_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    const h = fnv1a(word);
    vector[h % dimensions]! += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.sqrt(vector.reduce((s, v) => s + v * v, 0));
  if (norm === 0) {
    vector[0] = 1;
    return vector;
  }
  // Rounded through float32, as on the wire: the vector a client decodes equals this one.
  return Array.from(new Float32Array(vector.map((v) => v / norm)));
}

const invalid = (message: string, code: string): TestServerResponse => ({
  status: 400,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } }),
});

/**
 * Answers an embeddings request (`input`: a string or an array of strings; `dimensions`;
 * `encoding_format`: `float` or `base64`, the OpenAI SDK's default) like the OpenAI API.
 */
export function embeddingsResponse(body: Readonly<Record<string, unknown>>, defaultModel: string): TestServerResponse {
  const input = body['input'];
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === 'string')) {
    return invalid("OpenAI test server: 'input' must be a string or a non-empty array of strings.", 'invalid_input');
  }
  const dims = body['dimensions'] ?? TEST_EMBEDDING_DIMENSIONS;
  if (typeof dims !== 'number' || !Number.isInteger(dims) || dims < 1 || dims > 4096) {
    return invalid("OpenAI test server: 'dimensions' must be an integer between 1 and 4096.", 'invalid_dimensions');
  }
  const format = body['encoding_format'] ?? 'float';
  if (format !== 'float' && format !== 'base64') {
    return invalid("OpenAI test server: 'encoding_format' must be 'float' or 'base64'.", 'invalid_encoding_format');
  }
  let tokens = 0;
  const data = texts.map((text, index) => {
    tokens += Math.max(1, Math.ceil(text.length / 4));
    const vector = testEmbedding(text, dims);
    const embedding = format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  const model = typeof body['model'] === 'string' ? body['model'] : defaultModel;
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } }),
  };
}
