/**
 * rxscope RAG assistant: answers questions from a folder of Markdown files and cites them.
 *
 *   node examples/rag-assistant/dist/main.js "How long do refunds take?"
 *   node examples/rag-assistant/dist/main.js --static "Is limescale covered?"   retrieval before the first step
 *   node examples/rag-assistant/dist/main.js --knowledge ./my-docs "..."        another folder
 *
 * Offline by default (a local OpenAI-compatible test server for embeddings and a stand-in
 * model). With OPENAI_API_KEY it uses OpenAI (OPENAI_BASE_URL for any compatible server,
 * OPENAI_MODEL, OPENAI_EMBEDDING_MODEL).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OpenAIEmbeddings } from '@langchain/openai';
import { Agent } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { InMemoryKnowledgeBase, RAGMiddleware } from '@rxscope/middleware-builtin/knowledge';
import { lastValueFrom, tap } from 'rxjs';
import { loadMarkdown } from './load-markdown.js';
import { startOfflineModel } from './offline.js';

const SYSTEM_PROMPT =
  'You answer questions about our shop from the knowledge base only. Cite every source you use in brackets, ' +
  'like [handbook/shipping.md:3-4]. If the knowledge base does not say, answer that you do not know.';

const DEFAULT_KNOWLEDGE = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'knowledge');

async function main(argv: readonly string[]): Promise<number> {
  const args = [...argv];
  const flag = (name: string) => (args.includes(name) ? (args.splice(args.indexOf(name), 1), true) : false);
  const option = (name: string) => {
    const i = args.indexOf(name);
    return i < 0 ? undefined : args.splice(i, 2)[1];
  };
  const staticMode = flag('--static');
  const folder = option('--knowledge') ?? DEFAULT_KNOWLEDGE;
  const question = args.join(' ').trim() || 'How long do refunds take?';
  const env = process.env;

  let stop = async () => {};
  let model: OpenAIChatModel;
  let embeddings: OpenAIEmbeddings;
  if (env['OPENAI_API_KEY']) {
    const baseURL = env['OPENAI_BASE_URL'] || undefined;
    model = new OpenAIChatModel({
      model: env['OPENAI_MODEL'] || 'gpt-4o-mini',
      apiKey: env['OPENAI_API_KEY'],
      ...(baseURL ? { baseURL } : {}),
    });
    embeddings = new OpenAIEmbeddings({
      model: env['OPENAI_EMBEDDING_MODEL'] || 'text-embedding-3-small',
      ...(baseURL ? { configuration: { baseURL } } : {}),
    });
  } else {
    const server = await startOfflineModel();
    stop = () => server.close();
    model = new OpenAIChatModel({ model: 'offline-stand-in', apiKey: 'offline', baseURL: server.url });
    embeddings = new OpenAIEmbeddings({
      model: 'offline-embeddings',
      apiKey: 'offline',
      configuration: { baseURL: server.url },
    });
    process.stdout.write(
      '(offline: a local test server stands in for the model and the embeddings; set OPENAI_API_KEY for a real one)\n',
    );
  }

  try {
    const kb = new InMemoryKnowledgeBase({ embeddings, chunkSize: 400, chunkOverlap: 40 });
    const docs = await loadMarkdown(folder);
    const { chunks } = await kb.add(docs);
    const total = Object.values(chunks).reduce((a, b) => a + b, 0);
    process.stdout.write(`Knowledge: ${docs.length} files, ${total} chunks from ${folder}\n`);
    process.stdout.write(
      `Mode: ${staticMode ? 'static (retrieval before the first step)' : 'agentic (the model searches with a tool)'}\n\n> ${question}\n\n`,
    );

    const rag = new RAGMiddleware({
      knowledgeBases: { shop: kb },
      mode: staticMode ? 'static' : 'agentic',
      topK: 3,
      scoreThreshold: 0.2,
    });
    const agent = new Agent({ name: 'shop-assistant', sysPrompt: SYSTEM_PROMPT, model, middlewares: [rag] });
    const sources = new Set<string>();
    const end = await lastValueFrom(
      agent.reply(question).pipe(
        tap((e) => {
          if (e.type === 'TEXT_BLOCK_DELTA') process.stdout.write(e.delta);
          else if (e.type === 'TOOL_CALL_START') process.stdout.write(`\n  [searching the knowledge base]\n`);
          else if (e.type === 'TOOL_RESULT_END')
            for (const m of JSON.stringify(e.output).matchAll(/\[\d+\] (\S+) \(/g)) sources.add(m[1]!);
          else if (e.type === 'CUSTOM' && e.name === 'rag.retrieved')
            for (const h of (e.value as { hits: { citation: string }[] }).hits) sources.add(h.citation);
        }),
      ),
      { defaultValue: undefined },
    );
    process.stdout.write('\n');
    if (sources.size) process.stdout.write(`\nSources retrieved:\n${[...sources].map((s) => `  - ${s}`).join('\n')}\n`);
    if (end?.type === 'REPLY_END' && end.finishReason === 'error') {
      process.stderr.write(`The reply failed: ${end.error?.message ?? 'unknown error'}\n`);
      return 1;
    }
    return 0;
  } finally {
    await stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
