// searchLines and TimeSlice: the line numbers and text a search reports (line endings, a
// byte-order mark, long lines), stopping early, and the turns it gives the event loop.
import { searchLines } from './line-search.js';
import { compileSearchRegex } from './search-regex.js';
import { TimeSlice } from './time-slice.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Every match of `pattern` in `text`, as `n: text`, and the search's result. */
async function hits(text: string | Uint8Array, pattern: string, showChars = 300) {
  const found: string[] = [];
  const result = await searchLines(
    typeof text === 'string' ? utf8(text) : text,
    compileSearchRegex(pattern),
    new TimeSlice(),
    showChars,
    (n, line) => (found.push(`${n}: ${line}`), true),
  );
  return { found, ...result };
}

describe('searchLines', () => {
  it('numbers lines from 1, counting empty lines, and reports a last line without a newline', async () => {
    const { found, longLines, stopped } = await hits('alpha\n\nbeta\nalphabet', 'alpha');
    expect(found).toEqual(['1: alpha', '4: alphabet']);
    expect(longLines).toBe(0);
    expect(stopped).toBe(false);
  });

  it('drops the \\r of CRLF line endings, so $ anchors before it', async () => {
    const { found } = await hits('one\r\ntwo\r\nthree\r\n', 'o$');
    expect(found).toEqual(['2: two']);
  });

  it('skips a leading byte-order mark, so ^ anchors at the first real character', async () => {
    const { found } = await hits('\uFEFFimport x\nimport y\n', '^import');
    expect(found).toEqual(['1: import x', '2: import y']);
  });

  it('calls nothing for an empty file, and matches an empty line only where there is one', async () => {
    expect((await hits('', '.*')).found).toEqual([]);
    expect((await hits('a\n\nb\n', '^$')).found).toEqual(['2: ']);
  });

  it('stops at the first match the callback declines, and says it stopped', async () => {
    const seen: number[] = [];
    const result = await searchLines(
      utf8('x\nx\nx\nx\n'),
      compileSearchRegex('x'),
      new TimeSlice(),
      10,
      (n) => (seen.push(n), seen.length < 2),
    );
    expect(seen).toEqual([1, 2]);
    expect(result.stopped).toBe(true);
  });

  it('decodes only the start of a long matching line, yet enough to tell it was cut', async () => {
    const line = 'é'.repeat(1_000);
    const { found } = await hits(`${line}\n`, 'é', 5);
    const text = found[0]!.slice('1: '.length);
    expect(text.length).toBeGreaterThan(5);
    expect(text.length).toBeLessThan(100);
    expect(line.startsWith(text)).toBe(true);
  });

  it('counts lines longer than the pattern searches, and does not find a match past that bound', async () => {
    const re = compileSearchRegex('needle');
    const long = 'x'.repeat(re.lineBytes + 1) + 'needle';
    const result = await searchLines(utf8(`needle\n${long}\nshort\n`), re, new TimeSlice(), 20, () => true);
    expect(result.longLines).toBe(1);
    const { found } = await hits(`needle\n${long}\n`, 'needle', 20);
    expect(found).toEqual(['1: needle']);
  });

  it('keeps multi-byte characters whole in the reported text', async () => {
    const { found } = await hits('naïve café ☕\nplain\n', 'café');
    expect(found).toEqual(['1: naïve café ☕']);
  });

  it('lets other work run while it searches many lines in short slices', async () => {
    // A zero slice yields at every check: 20,000 lines are 20,000 turns of the loop, enough to see
    // other work run, and quick even on a loaded machine (200,000 took over 20 s on one).
    const text = utf8('line of text\n'.repeat(20_000));
    let ranDuringSearch = false;
    let searching = true;
    const poll = (): void => {
      if (searching) {
        ranDuringSearch = true;
      }
    };
    setImmediate(poll);
    const result = await searchLines(text, compileSearchRegex('nothing here'), new TimeSlice(0), 10, () => true);
    searching = false;
    expect(result.stopped).toBe(false);
    expect(ranDuringSearch).toBe(true);
  });
});

describe('TimeSlice', () => {
  it('is not due at once with a long slice, and is due at once with a zero slice', () => {
    expect(new TimeSlice(60_000).due).toBe(false);
    expect(new TimeSlice(0).due).toBe(true);
  });

  it('gives pending immediates a turn in next(), then starts a fresh slice', async () => {
    const slice = new TimeSlice(60_000);
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    await slice.next();
    expect(ran).toBe(true);
    expect(slice.due).toBe(false);
  });
});
