// `POST /v1/moderations` of the OpenAI-compatible test server: a deterministic moderation, so
// guardrail tests can say which text is flagged and why.
import type { TestServerResponse } from './route-response.js';

/**
 * The words the test server's moderation flags, by category: a text is flagged in a category
 * when it contains one of its words (whole word, any case).
 *
 * @example
 * ```ts
 * const server = await startOpenAITestServer();
 * // a text with 'kill' is flagged as violence
 * expect(TEST_MODERATION_TERMS.violence).toContain('kill');
 * ```
 */
export const TEST_MODERATION_TERMS: Readonly<Record<string, readonly string[]>> = {
  violence: ['kill', 'bomb'],
  harassment: ['idiot'],
  hate: ['hateful'],
  'self-harm': ['self-harm'],
};

const invalid = (message: string): TestServerResponse => ({
  status: 400,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ error: { message, type: 'invalid_request_error', param: 'input', code: 'invalid_input' } }),
});

/** Answers a moderation request (`input`: a string or an array of strings) like the OpenAI API. */
export function moderationResponse(body: Readonly<Record<string, unknown>>): TestServerResponse {
  const input = body['input'];
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === 'string'))
    return invalid("OpenAI test server: 'input' must be a string or a non-empty array of strings.");
  const results = texts.map((text) => {
    const words = new Set(text.toLowerCase().match(/[\p{L}\p{N}-]+/gu) ?? []);
    const categories: Record<string, boolean> = {};
    const scores: Record<string, number> = {};
    for (const [category, terms] of Object.entries(TEST_MODERATION_TERMS)) {
      categories[category] = terms.some((t) => words.has(t));
      scores[category] = categories[category] ? 0.99 : 0.001;
    }
    return { flagged: Object.values(categories).some(Boolean), categories, category_scores: scores };
  });
  const model = typeof body['model'] === 'string' ? body['model'] : 'omni-moderation-latest';
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: `modr-${Date.now()}`, model, results }),
  };
}
