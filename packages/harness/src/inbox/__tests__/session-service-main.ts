// A second process of the wake-up spec (run with tsx's loader): a session service on Redis
// (session-service.ts). Prints "ready" once it listens; closes on SIGTERM.
import { startSessionService } from './session-service.js';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

void startSessionService({
  redisUrl: env('REDIS_URL'),
  prefix: env('SERVICE_PREFIX'),
  modelUrl: env('MODEL_URL'),
  name: env('SERVICE_NAME'),
}).then((service) => {
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => void service.close().then(() => process.exit(0)));
});
