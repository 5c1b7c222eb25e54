import { startOpenAITestServer, TEST_MODERATION_TERMS } from './index.js';

describe('the test server: POST /v1/moderations', () => {
  it('flags the texts that hold a listed word, per category, like the OpenAI API', async () => {
    const server = await startOpenAITestServer();
    try {
      const res = await fetch(`${server.url}/moderations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'omni-moderation-latest', input: ['I will KILL the process', 'hello there'] }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        model: string;
        results: { flagged: boolean; categories: Record<string, boolean> }[];
      };
      expect(body.model).toBe('omni-moderation-latest');
      expect(body.results.map((r) => r.flagged)).toEqual([true, false]);
      expect(body.results[0]!.categories).toMatchObject({ violence: true, harassment: false });
      expect(Object.keys(body.results[1]!.categories).sort()).toEqual(Object.keys(TEST_MODERATION_TERMS).sort());

      const bad = await fetch(`${server.url}/moderations`, { method: 'POST', body: JSON.stringify({ input: 42 }) });
      expect(bad.status).toBe(400);
      expect(server.requests.map((r) => r.path)).toEqual(['/v1/moderations', '/v1/moderations']);
    } finally {
      await server.close();
    }
  });
});
