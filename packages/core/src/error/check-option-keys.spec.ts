import { checkOptionKeys, closestOption, OptionsError, optionKeys, RxscopeError } from '../index.js';

interface GreeterOptions {
  readonly greeting?: string;
  readonly sysPrompt?: string;
  readonly baseURL?: string;
}
const KEYS = optionKeys<GreeterOptions>({ greeting: true, sysPrompt: true, baseURL: true });

function refusal(options: unknown, how?: Parameters<typeof checkOptionKeys>[3]): Error {
  try {
    checkOptionKeys('Greeter', options, KEYS, how);
  } catch (e) {
    return e as Error;
  }
  throw new Error('not refused');
}

describe('checkOptionKeys', () => {
  it('accepts absent options, known keys, and keys set to undefined', () => {
    expect(() => checkOptionKeys('Greeter', undefined, KEYS)).not.toThrow();
    expect(() => checkOptionKeys('Greeter', { greeting: 'hi', colour: undefined }, KEYS)).not.toThrow();
  });

  it('refuses an unknown key as OptionsError unknown_option, naming the closest key and the known ones', () => {
    const e = refusal({ greetng: 'hi' }) as OptionsError;
    expect(e).toBeInstanceOf(RxscopeError);
    expect(e).toMatchObject({ name: 'OptionsError', code: 'unknown_option', option: 'Greeter.greetng' });
    expect(e.message).toBe(
      'unknown option "greetng" of Greeter; did you mean "greeting"? Known: greeting, sysPrompt, baseURL.',
    );
    expect(refusal({ colour: 'red' }).message).toBe(
      'unknown option "colour" of Greeter. Known: greeting, sysPrompt, baseURL.',
    );
  });

  it("answers other frameworks' names with the rxscope spelling, when the owner has that key", () => {
    expect(refusal({ instructions: 'x' }).message).toContain(
      `unknown option "instructions" of Greeter; did you mean "sysPrompt"? ("instructions" is another framework's name for it)`,
    );
    expect(refusal({ baseUrl: 'http://x' }).message).toContain('did you mean "baseURL"?');
    // maxSteps → maxIters only where maxIters is a key: here nothing is near.
    expect(refusal({ maxSteps: 3 }).message).toBe(
      'unknown option "maxSteps" of Greeter. Known: greeting, sysPrompt, baseURL.',
    );
    expect(refusal({ salutation: 'x' }, { foreign: { salutation: 'greeting' } }).message).toContain(
      'did you mean "greeting"?',
    );
  });

  it('refuses keys named like Object.prototype members instead of taking them for known ones', () => {
    expect(refusal({ constructor: 1 }).message).toMatch(/^unknown option "constructor" of Greeter/);
    expect(refusal(JSON.parse('{"__proto__": 1}')).message).toMatch(/^unknown option "__proto__"/);
  });

  it('refuses what is not an object as invalid_option', () => {
    for (const bad of [null, 'hi', 3, ['greeting']]) {
      expect(refusal(bad)).toMatchObject({ code: 'invalid_option', option: 'Greeter' });
    }
    expect(refusal('hi').message).toBe(
      'The options of Greeter must be an object (greeting, sysPrompt, baseURL), got "hi".',
    );
  });

  it("throws the owner's own error class when given one", () => {
    class GreeterError extends RxscopeError {
      constructor(
        readonly code: string,
        message: string,
      ) {
        super(message);
      }
    }
    const e = refusal({ greetng: 1 }, { error: (code, _option, message) => new GreeterError(code, message) });
    expect(e).toBeInstanceOf(GreeterError);
    expect(e).toMatchObject({ code: 'unknown_option' });
  });
});

describe('closestOption', () => {
  it('finds a slip whatever its case, and nothing for a far key', () => {
    expect(closestOption('maxRetry', ['maxRetries', 'initialDelayMs'])).toBe('maxRetries');
    expect(closestOption('MAXRETRIES', ['maxRetries'])).toBe('maxRetries');
    expect(closestOption('colour', ['maxRetries'])).toBeUndefined();
  });
});
