/**
 * rxscope node-service: a multi-session chat service (HTTP + SSE). See docs/node-services.md.
 *
 *   node examples/node-service/dist/main.js           offline scripted model on a local test server
 *   OPENAI_API_KEY=sk-... node examples/node-service/dist/main.js
 *
 * Environment: PORT (3000; 0 = any free port), HOST (127.0.0.1), STATIC_DIR, CORS_ORIGIN
 * (http://localhost:4200; comma-separated, or *), OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL,
 * REDIS_URL (keep the replay logs on Redis), SHUTDOWN_GRACE_MS (10000: on SIGTERM, how long running
 * replies get to reach a safe point before they are cut off), NODE_ENV (the devtools are served at
 * /_devtools to loopback clients unless it is "production"), TTS_BASE_URL (speak replies: audio
 * from this OpenAI-compatible /v1/audio/speech; with TTS_API_KEY, TTS_MODEL, TTS_VOICE).
 */
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { OpenAITextToSpeech } from '@rxscope/middleware-builtin/tts';
import { RedisSessionEventBus } from '@rxscope/core/node';
import { Redis } from 'ioredis';
import { startOfflineModel } from './offline.js';
import { startService } from './service.js';

async function main(): Promise<void> {
  const env = process.env;
  const here = dirname(fileURLToPath(import.meta.url));
  let model: OpenAIChatModel;
  let modelLabel: string;
  let modelRequests: (() => readonly { completed: boolean; clientClosed: boolean }[]) | undefined;
  let stopModel = async () => {};
  if (env['OPENAI_API_KEY']) {
    modelLabel = env['OPENAI_MODEL'] || 'gpt-4o-mini';
    const baseURL = env['OPENAI_BASE_URL'] || undefined;
    model = new OpenAIChatModel({ model: modelLabel, apiKey: env['OPENAI_API_KEY'], ...(baseURL ? { baseURL } : {}) });
  } else {
    const offline = await startOfflineModel();
    model = new OpenAIChatModel({ model: 'offline-scripted', apiKey: 'offline', baseURL: offline.url });
    modelLabel = 'offline';
    modelRequests = () => offline.requests;
    stopModel = () => offline.close();
  }
  const redis = env['REDIS_URL'] ? new Redis(env['REDIS_URL']) : undefined;
  const tts = env['TTS_BASE_URL']
    ? new OpenAITextToSpeech({
        baseURL: env['TTS_BASE_URL'],
        apiKey: env['TTS_API_KEY'] || env['OPENAI_API_KEY'] || 'none',
        ...(env['TTS_MODEL'] ? { model: env['TTS_MODEL'] } : {}),
        ...(env['TTS_VOICE'] ? { voice: env['TTS_VOICE'] } : {}),
      })
    : undefined;
  const service = await startService({
    model,
    modelLabel,
    ...(modelRequests ? { modelRequests } : {}),
    port: Number(env['PORT'] ?? 3000),
    host: env['HOST'] || '127.0.0.1',
    staticDir: env['STATIC_DIR'] || join(here, '..', 'public'),
    corsOrigins: (env['CORS_ORIGIN'] ?? 'http://localhost:4200')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    ...(redis ? { bus: new RedisSessionEventBus({ redis }) } : {}),
    ...(tts ? { tts } : {}),
    devtools: { enabled: env['NODE_ENV'] !== 'production' },
  });
  process.stdout.write(
    `listening on ${service.url} (model: ${modelLabel}${redis ? ', replay logs on Redis' : ''}${tts ? ', speaking' : ''})\n`,
  );
  if (service.devtools) process.stdout.write(`devtools on ${service.url}/_devtools/\n`);
  const stop = () => {
    void (async () => {
      const graceMs = Number(env['SHUTDOWN_GRACE_MS'] ?? 10_000);
      const suspended = await service.shutdown({ graceMs, reason: 'the service received SIGTERM' });
      process.stdout.write(`shut down; replies suspended: ${JSON.stringify(suspended)}\n`);
      await stopModel();
      redis?.disconnect();
      process.exit(0);
    })();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `node-service failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
