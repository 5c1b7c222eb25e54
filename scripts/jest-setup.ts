// Runs before every test file of every jest project: a test fails when it writes to the console
// or leaves an error unhandled (a rejected promise nobody awaited, an RxJS error nobody
// subscribed for), instead of passing with a warning lost in the log. A test that expects
// console output says so by mocking the method: jest.spyOn(console, 'warn').mockImplementation(() => {}).
import { format } from 'node:util';
import { config } from 'rxjs';

// CI machines have 2 cores and the suite runs test servers, Redis and Chromium side by side: a
// test that boots a server takes 0.5 s alone but has taken over 5 s (jest's default) under that
// load. A real hang still fails, at 20 s.
jest.setTimeout(20_000);

const METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
type Method = (typeof METHODS)[number];

const originals = new Map<Method, (...args: unknown[]) => void>();
let output: string[] = [];
let unhandled: string[] = [];

const describeError = (e: unknown): string => (e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : format(e));
const onRejection = (reason: unknown): void => {
  unhandled.push(`unhandled rejection: ${describeError(reason)}`);
};
process.on('unhandledRejection', onRejection);
config.onUnhandledError = (err: unknown) => {
  unhandled.push(`RxJS error with no error handler: ${describeError(err)}`);
};

beforeEach(() => {
  output = [];
  unhandled = [];
  for (const method of METHODS) {
    originals.set(method, console[method]);
    console[method] = (...args: unknown[]) => {
      output.push(`console.${method}: ${format(...args)}`);
    };
  }
});

afterEach(() => {
  for (const [method, original] of originals) console[method] = original;
  originals.clear();
  const problems = [...unhandled, ...output];
  if (problems.length) {
    throw new Error(
      `The test left ${problems.length} unexpected message(s) (mock the console method when output is expected; ` +
        `await or handle every promise and stream):\n${problems.map((p) => `  - ${p.split('\n').slice(0, 6).join('\n    ')}`).join('\n')}`,
    );
  }
});

afterAll(() => {
  process.off('unhandledRejection', onRejection);
  config.onUnhandledError = null;
});
