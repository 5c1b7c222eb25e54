// checkOptions and its checks: a misspelt key fails at start-up naming the key meant, a wrong
// value names what was expected and what was given, and the tools built on it refuse the same way.
import { RxscopeError } from '@rxscope/core';
import { tempDir } from '../__tests__/helpers.js';
import { editFileTool } from '../tools/edit-file.js';
import { grepFilesTool } from '../tools/grep-files.js';
import { readFileTool } from '../tools/read-file.js';
import { LocalFileSystem } from '../workspace/local-file-system.js';
import { aBoolean, aFunction, aString, checkOptions, integerAtLeast, type OptionCheck } from './check-options.js';
import { HarnessOptionError } from './harness-option-error.js';

const checks: Readonly<Record<string, OptionCheck>> = {
  maxMatches: integerAtLeast(1),
  maxFileBytes: integerAtLeast(0),
  truncate: aBoolean,
  label: aString,
  onMatch: aFunction,
};

/** The HarnessOptionError `checkOptions('tool', options, checks)` throws. */
function refusal(options: unknown, table = checks): HarnessOptionError {
  try {
    checkOptions('tool', options, table);
  } catch (e) {
    if (e instanceof HarnessOptionError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(options)} to be refused`);
}

describe('checkOptions: keys', () => {
  it('accepts absent options, an empty object, and every known key with a good value', () => {
    expect(() => checkOptions('tool', undefined, checks)).not.toThrow();
    expect(() => checkOptions('tool', {}, checks)).not.toThrow();
    expect(() =>
      checkOptions('tool', { maxMatches: 1, maxFileBytes: 0, truncate: false, label: '', onMatch: () => 1 }, checks),
    ).not.toThrow();
  });

  it('names the closest known key when one is misspelt, as owner.key', () => {
    const e = refusal({ maxMatchs: 5 });
    expect(e).toBeInstanceOf(RxscopeError);
    expect(e.name).toBe('HarnessOptionError');
    expect(e.code).toBe('unknown_option');
    expect(e.option).toBe('tool.maxMatchs');
    expect(e.message).toBe(
      'unknown option "maxMatchs" of tool; did you mean "maxMatches"? Known: maxMatches, maxFileBytes, truncate, label, onMatch.',
    );
  });

  it('finds the key meant whatever its case', () => {
    expect(refusal({ MAXFILEBYTES: 10 }).message).toContain('did you mean "maxFileBytes"?');
  });

  it('tells which of two similar keys is closer', () => {
    expect(refusal({ maxFileByte: 10 }).message).toContain('did you mean "maxFileBytes"?');
    expect(refusal({ maxMatch: 10 }).message).toContain('did you mean "maxMatches"?');
  });

  it('guesses nothing for a key far from every known one, and still lists them', () => {
    const e = refusal({ colour: 'red' });
    expect(e.code).toBe('unknown_option');
    expect(e.message).toBe(
      'unknown option "colour" of tool. Known: maxMatches, maxFileBytes, truncate, label, onMatch.',
    );
  });

  it('allows more typos in a longer key (a third of its length), but not in a short one', () => {
    const table = { a: aBoolean, verboseLoggingEnabled: aBoolean };
    expect(refusal({ vrbseLogingEnabld: true }, table).message).toContain('did you mean "verboseLoggingEnabled"?');
    expect(refusal({ xyz: true }, table).message).not.toContain('did you mean');
  });

  it('refuses keys inherited from Object.prototype instead of taking them for checks', () => {
    for (const key of ['toString', 'constructor', 'hasOwnProperty', '__defineGetter__']) {
      const e = refusal({ [key]: 1 });
      expect(e.code).toBe('unknown_option');
      expect(e.option).toBe(`tool.${key}`);
    }
  });

  it('takes an undefined value as absent, known key or not', () => {
    expect(() => checkOptions('tool', { maxMatches: undefined, anythingElse: undefined }, checks)).not.toThrow();
  });

  it.each([
    ['a string', 'fast', '"fast"'],
    ['null', null, 'null'],
    ['an array', [1, 2], 'an array'],
    ['a number', 5, '5'],
    ['a function', () => 1, 'a function'],
  ])('refuses %s in place of the options object, listing the keys it takes', (_label, options, shown) => {
    const e = refusal(options);
    expect(e.code).toBe('invalid_option');
    expect(e.option).toBe('tool');
    expect(e.message).toBe(
      `The options of tool must be an object (maxMatches, maxFileBytes, truncate, label, onMatch), got ${shown}.`,
    );
  });
});

describe('checkOptions: values', () => {
  it.each([
    [0, '0'],
    [1.5, '1.5'],
    [-3, '-3'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    ['10', '"10"'],
    [10n, '10'],
    [null, 'null'],
    [{ n: 1 }, 'an object'],
  ])('refuses maxMatches %p as not a whole number of at least 1, showing %s', (value, shown) => {
    const e = refusal({ maxMatches: value });
    expect(e.code).toBe('invalid_option');
    expect(e.option).toBe('tool.maxMatches');
    expect(e.message).toBe(`tool: maxMatches must be a whole number of at least 1, got ${shown}.`);
  });

  it('accepts 0 where the minimum is 0, and a very large whole number', () => {
    expect(() => checkOptions('tool', { maxFileBytes: 0 }, checks)).not.toThrow();
    expect(() => checkOptions('tool', { maxFileBytes: Number.MAX_SAFE_INTEGER }, checks)).not.toThrow();
  });

  it('refuses a truthy string for a boolean, a number for a string and a string for a function', () => {
    expect(refusal({ truncate: 'yes' }).message).toBe('tool: truncate must be true or false, got "yes".');
    expect(refusal({ label: 7 }).message).toBe('tool: label must be a string, got 7.');
    expect(refusal({ onMatch: 'print' }).message).toBe('tool: onMatch must be a function, got "print".');
  });

  it('reports the first bad entry in the order given', () => {
    expect(refusal({ label: 1, truncate: 'no' }).option).toBe('tool.label');
    expect(refusal({ nope: 1, label: 1 }).code).toBe('unknown_option');
  });
});

/** The HarnessOptionError `build` throws. */
function thrown(build: () => unknown): HarnessOptionError {
  try {
    build();
  } catch (e) {
    if (e instanceof HarnessOptionError) return e;
    throw e;
  }
  throw new Error('expected a HarnessOptionError');
}

describe('the tools built on checkOptions', () => {
  let dir: ReturnType<typeof tempDir>;
  let fs: LocalFileSystem;
  beforeEach(() => {
    dir = tempDir();
    fs = new LocalFileSystem(dir.path);
  });
  afterEach(() => dir.cleanup());

  it('grepFilesTool refuses a misspelt limit when built, naming the one meant', () => {
    const e = thrown(() => grepFilesTool(fs, { maxSerchMs: 100 } as never));
    expect(e).toMatchObject({ code: 'unknown_option', option: 'grepFilesTool.maxSerchMs' });
    expect(e.message).toContain('did you mean "maxSearchMs"?');
  });

  it('readFileTool refuses a fractional or zero limit when built', () => {
    expect(() => readFileTool(fs, { maxChars: 0.5 })).toThrow(
      'readFileTool: maxChars must be a whole number of at least 1, got 0.5.',
    );
    expect(() => readFileTool(fs, { defaultLimit: 0 })).toThrow(HarnessOptionError);
  });

  it('editFileTool takes a zero maxFileBytes but not a negative one', () => {
    expect(() => editFileTool(fs, { maxFileBytes: 0 })).not.toThrow();
    expect(thrown(() => editFileTool(fs, { maxFileBytes: -1 }))).toMatchObject({
      code: 'invalid_option',
      option: 'editFileTool.maxFileBytes',
    });
  });

  it('the workspace readFile refuses a bad option at the call, before touching the file', async () => {
    await expect(fs.readFile('missing.txt', { maxByte: 10 } as never)).rejects.toMatchObject({
      code: 'unknown_option',
      option: 'readFile.maxByte',
    });
    await expect(fs.readFile('missing.txt', { truncate: 1 } as never)).rejects.toThrow(
      'readFile: truncate must be true or false, got 1.',
    );
  });
});
