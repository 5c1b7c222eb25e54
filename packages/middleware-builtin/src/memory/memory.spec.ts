import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAIEmbeddings } from '@langchain/openai';
import { Agent } from '@rxscope/core';
import {
  startOpenAITestServer,
  type OpenAITestServer,
  type RecordedRequest,
  type ServerTurn,
} from '@rxscope/core/testing/node';
import { closeTestServer, customValues, ofType, run, testServerModel } from '../__tests__/helpers.js';
import { FileMemoryBackend } from '../node/file-memory-backend.js';
import { AgenticMemoryMiddleware } from './index.js';
import { KnowledgeMemoryBackend } from './knowledge-memory-backend.js';
import { parseMemoryFile } from './memory-backend.js';

const MEMORIES = [
  {
    name: 'user-preferences',
    description: 'How the user likes answers',
    type: 'user',
    content: 'Metric units. Short answers.',
  },
  {
    name: 'project-billing',
    description: 'The billing service project',
    type: 'project',
    content: 'Billing runs on Postgres 16 in Lyon.',
  },
  { name: 'feedback-tone', description: 'Feedback on tone', type: 'feedback', content: 'No exclamation marks.' },
];

const textOf = (content: unknown) =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p: { text?: string }) => p.text ?? '').join('')
      : '';
const isSelection = (r: RecordedRequest) => textOf(r.body.messages?.[0]?.content).startsWith('Pick the memories');

/** The selector picks by keywords of the question (and invents one name); the agent answers plainly. */
function handler(request: RecordedRequest): ServerTurn {
  const messages = request.body.messages!;
  if (isSelection(request)) {
    const q = textOf(messages.at(-1)!.content);
    const picks = [q.includes('units') ? 'user-preferences' : 'project-billing', 'made-up-memory'];
    return { text: `Here you go: ${JSON.stringify(picks)}` };
  }
  return { text: 'Answered.' };
}

describe('AgenticMemoryMiddleware', () => {
  let dir: string;
  let server: OpenAITestServer;
  let backend: FileMemoryBackend;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memory-'));
    server = await startOpenAITestServer({ handler });
    backend = new FileMemoryBackend({ dir });
    for (const m of MEMORIES) await backend.write(m);
  });
  afterEach(async () => {
    await closeTestServer(server);
    await rm(dir, { recursive: true, force: true });
  });
  const chat = () => server.requests.filter((r) => r.path === '/v1/chat/completions' && !isSelection(r));

  it('shows the index in the system prompt and recalls the picked memories as a hint for the first step, dropping invented names', async () => {
    const agent = new Agent({
      name: 'a',
      sysPrompt: 'You help.',
      model: testServerModel(server),
      middlewares: [new AgenticMemoryMiddleware({ backend })],
    });
    const { events, end } = await run(agent, 'Which units should I use?');

    expect(end.finishReason).toBe('completed');
    const system = textOf(chat()[0]!.body.messages![0]!.content);
    expect(system).toContain('- user-preferences (user): How the user likes answers');
    expect(system).toContain('- project-billing (project): The billing service project');
    expect(JSON.stringify(chat()[0]!.body.messages)).toContain(
      '### user-preferences (user)\\nMetric units. Short answers.',
    );
    expect(JSON.stringify(chat()[0]!.body.messages)).not.toContain('Postgres');
    expect(customValues(events, 'memory.recalled')).toEqual([
      { names: ['user-preferences'], dropped: ['made-up-memory'] },
    ]);
    expect(ofType(events, 'HINT_BLOCK')).toHaveLength(1);
    // The selection saw the index and the question; the hint is gone from the stored conversation.
    const selection = server.requests.find(isSelection)!;
    expect(textOf(selection.body.messages![0]!.content)).toContain('- feedback-tone (feedback): Feedback on tone');
    expect(textOf(selection.body.messages![1]!.content)).toBe('Which units should I use?');
    expect(JSON.stringify(agent.context)).not.toContain('Metric units');
  });

  it('lets the agent add memories as Markdown files with front matter and search them', async () => {
    const scripted = await startOpenAITestServer({
      handler: (req) => {
        if (isSelection(req)) return { text: '[]' };
        const last = req.body.messages!.at(-1)!;
        if (last.role === 'tool')
          return textOf(last.content).startsWith('Saved')
            ? { toolCalls: [{ name: 'memory_search', input: { query: 'deploy Friday' } }] }
            : { text: 'Noted.' };
        return {
          toolCalls: [
            {
              name: 'memory_add',
              input: {
                name: 'deploy-rules',
                description: 'When deploys happen',
                type: 'project',
                content: 'Never deploy on a Friday.',
              },
            },
          ],
        };
      },
    });
    try {
      const agent = new Agent({
        name: 'a',
        model: testServerModel(scripted),
        middlewares: [new AgenticMemoryMiddleware({ backend })],
      });
      const { events } = await run(agent, 'Remember: no deploys on Fridays.');
      const results = ofType(events, 'TOOL_RESULT_END');
      expect(results.map((r) => r.status)).toEqual(['success', 'success']);
      expect(JSON.stringify(results[1]!.output)).toContain('Never deploy on a Friday.');
      const file = await readFile(join(dir, 'deploy-rules.md'), 'utf8');
      expect(file).toBe(
        '---\nname: deploy-rules\ndescription: When deploys happen\ntype: project\n---\nNever deploy on a Friday.\n',
      );
      expect(parseMemoryFile(file, 'x')).toMatchObject({ name: 'deploy-rules', type: 'project' });
      expect((await backend.list()).map((h) => h.name)).toContain('deploy-rules');
    } finally {
      await closeTestServer(scripted);
    }
  });

  it('serves concurrent replies from one shared instance, each recalling for its own question', async () => {
    const memory = new AgenticMemoryMiddleware({ backend });
    const questions = ['Which units?', 'Where does billing run?', 'units again', 'billing db'];
    const results = await Promise.all(
      questions.map((q, i) =>
        run(new Agent({ name: `a${i}`, model: testServerModel(server), middlewares: [memory] }), q),
      ),
    );
    results.forEach(({ events }, i) => {
      const [recalled] = customValues<{ names: string[] }>(events, 'memory.recalled');
      expect(recalled!.names).toEqual([questions[i]!.includes('units') ? 'user-preferences' : 'project-billing']);
      expect(ofType(events, 'HINT_BLOCK')[0]!.text).toContain(
        questions[i]!.includes('units') ? 'Metric units' : 'Postgres',
      );
    });
  });

  it('keeps the index within its token budget and goes on without memories when the selection fails', async () => {
    const agent = new Agent({
      name: 'a',
      model: testServerModel(server),
      middlewares: [new AgenticMemoryMiddleware({ backend, indexTokenBudget: 20 })],
    });
    await run(agent, 'units?');
    const system = textOf(chat()[0]!.body.messages![0]!.content);
    expect(system).toContain('- feedback-tone (feedback): Feedback on tone');
    expect(system).toContain('(… 2 more; use memory_search)');

    const failing = await startOpenAITestServer({
      handler: (req) => (isSelection(req) ? { fault: 'unauthorized' } : { text: 'ok' }),
    });
    try {
      const { events, end } = await run(
        new Agent({
          name: 'b',
          model: testServerModel(failing),
          middlewares: [new AgenticMemoryMiddleware({ backend })],
        }),
        'units?',
      );
      expect(end.finishReason).toBe('completed');
      expect(customValues<{ message: string }>(events, 'memory.error')[0]!.message).toMatch(/API key/);
    } finally {
      await closeTestServer(failing);
    }
  });

  it('refuses bad options and names a memory file without front matter', async () => {
    expect(() => new AgenticMemoryMiddleware({} as never)).toThrow(/backend must be a MemoryBackend/);
    expect(() => new AgenticMemoryMiddleware({ backend, maxRecall: -1 })).toThrow(/maxRecall must be an integer >= 0/);
    await expect(backend.write({ name: '../escape', description: 'x', type: 'user', content: 'x' })).rejects.toThrow(
      /memory name "..\/escape"/,
    );
    await writeFile(join(dir, 'broken.md'), 'just text');
    await expect(backend.list()).rejects.toThrow(/memory "broken": no front matter/);
  });
});

describe('KnowledgeMemoryBackend', () => {
  it('finds memories by meaning through embeddings', async () => {
    const server = await startOpenAITestServer();
    try {
      const embeddings = new OpenAIEmbeddings({
        model: 'e',
        apiKey: 'sk-test',
        configuration: { baseURL: server.url },
      });
      const backend = new KnowledgeMemoryBackend({ embeddings, memories: MEMORIES });
      expect((await backend.search('postgres billing', 1)).map((m) => m.name)).toEqual(['project-billing']);
      await backend.write({
        name: 'user-preferences',
        description: 'How the user likes answers',
        type: 'user',
        content: 'Imperial units now.',
      });
      expect((await backend.read(['user-preferences', 'nope']))[0]!.content).toBe('Imperial units now.');
      expect((await backend.search('imperial units', 1)).map((m) => m.name)).toEqual(['user-preferences']);
    } finally {
      await server.close();
    }
  });
});
