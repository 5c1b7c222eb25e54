import { RedactionPolicy, StreamRedactor, type PiiStrategy } from './stream.js';
import type { PiiType } from './detect.js';

const policy = (types: Partial<Record<PiiType, PiiStrategy>> = {}) => new RedactionPolicy(types, 'salt');

/** Streams `pieces` through a fresh redactor; returns what it emitted, piece by piece. */
function stream(p: RedactionPolicy, pieces: readonly string[], maxHold = 4096): { out: string[]; blocked: boolean } {
  const r = new StreamRedactor(p, maxHold);
  const out: string[] = [];
  let blocked = false;
  for (const piece of pieces) {
    const x = r.push(piece);
    out.push(x.text);
    blocked ||= x.blocked !== undefined;
  }
  const last = r.flush();
  out.push(last.text);
  blocked ||= last.blocked !== undefined;
  return { out, blocked };
}

/** Deterministic pseudo-random numbers (mulberry32), so failures can be replayed. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CORPUS = [
  'My card is 4111 1111 1111 1111, thanks.',
  'Card 4111-1111-1111-1111 and 4111111111111112 (invalid) and 5555555555554444',
  'Write to jane.doe+news@mail.example.co.uk or bob@example.com.',
  'Call +1 (415) 555-2671 or 415.555.2671, or Büro 030 12345678!',
  'IBAN DE89 3704 0044 0532 0130 00 IS MINE, not DE89 3704 0044 0532 0130 01.',
  'GB29NWBK60161331926819 then key sk-proj-4f9XkQ2mZ8vLr1TbN6yHc3Wd7Ps0Ea5Gu ok',
  'token=ghp_16C7e42F292c6912E7710c838347Ae178B4a;aws=AKIAIOSFODNN7EXAMPLE',
  'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end',
  'Nothing to see here: 2024-01-15, version 1.2.3, 10.000.000 units, order #123456.',
  '4111 1111 1111 1111 2222 and 12 4111 1111 1111 1111 and a@b.co.uk.x1',
  'Üñíçødé 🎉 text with jane@example.com 🎉 and +49 30 12345678',
];

describe('StreamRedactor', () => {
  const p = policy();

  it.each(CORPUS)('every split into two pieces gives the redaction of the whole text: %j', (text) => {
    const whole = p.redact(text).text;
    for (let i = 0; i <= text.length; i++) {
      expect(stream(p, [text.slice(0, i), text.slice(i)]).out.join('')).toBe(whole);
    }
  });

  it('every split into three pieces, for a card number in a sentence', () => {
    const text = 'pay with 4111 1111 1111 1111 now';
    const whole = p.redact(text).text;
    expect(whole).toBe('pay with ****1111 now');
    for (let i = 0; i <= text.length; i++) {
      for (let j = i; j <= text.length; j++) {
        const { out } = stream(p, [text.slice(0, i), text.slice(i, j), text.slice(j)]);
        expect(out.join('')).toBe(whole);
        expect(out.some((piece) => /\d{4} \d{4}/.test(piece))).toBe(false);
      }
    }
  });

  it('random splits into up to 12 pieces, for every text and strategy', () => {
    const next = rng(42);
    const policies = [
      p,
      policy({ email: 'hash', phone: 'hash', card: 'hash', iban: 'hash', secret: 'hash' }),
      policy({ phone: 'off', card: 'off' }),
    ];
    for (const q of policies) {
      for (const text of CORPUS) {
        const whole = q.redact(text).text;
        for (let round = 0; round < 40; round++) {
          const cuts = Array.from({ length: Math.floor(next() * 12) }, () =>
            Math.floor(next() * (text.length + 1)),
          ).sort((a, b) => a - b);
          const pieces = [0, ...cuts].map((c, k, all) => text.slice(c, all[k + 1] ?? text.length));
          expect(stream(q, pieces).out.join('')).toBe(whole);
        }
      }
    }
  });

  it('fuzz: texts glued from tricky fragments, streamed character by character and in random pieces', () => {
    const fragments = [
      '4111',
      ' ',
      '1111',
      '-',
      '+1',
      '(415)',
      '555',
      '.',
      '2671',
      'DE89',
      '3704',
      '0044',
      '0532',
      '0130',
      '00',
      'IS',
      'a',
      'b',
      '@',
      'example',
      '.com',
      'sk-',
      'Zx9Qw2Er7Ty5Ui3Op1As8Df6Gh4Jk0LmNbV',
      'AKIA',
      'IOSFODNN7EXAMPLE',
      ',',
      '\n',
      'x',
      '0',
      '030',
      '_',
    ];
    const next = rng(7);
    for (let round = 0; round < 400; round++) {
      const text = Array.from(
        { length: 4 + Math.floor(next() * 30) },
        () => fragments[Math.floor(next() * fragments.length)],
      ).join('');
      const whole = p.redact(text).text;
      expect(stream(p, [...text]).out.join('')).toBe(whole);
      const cuts = Array.from({ length: Math.floor(next() * 8) }, () => Math.floor(next() * (text.length + 1))).sort(
        (a, b) => a - b,
      );
      expect(
        stream(
          p,
          [0, ...cuts].map((c, k, all) => text.slice(c, all[k + 1] ?? text.length)),
        ).out.join(''),
      ).toBe(whole);
    }
  });

  it('holds back only the tail that could still become a match', () => {
    const r = new StreamRedactor(p, 4096);
    expect(r.push('Hello world, my card is ').text).toBe('Hello world, my card is ');
    expect(r.push('4111 1111').text).toBe(''); // could be a card number
    expect(r.push(' 1111 1111').text).toBe(''); // it is one, but a fifth group could follow
    expect(r.push(' and').text).toBe('****1111 '); // decided; "and" could still start an address
    expect(r.push(' more').text).toBe('and ');
    expect(r.flush().text).toBe('more');
  });

  it('holds the current word only (it could be the start of an e-mail address)', () => {
    const r = new StreamRedactor(p, 4096);
    expect(r.push('The quick brown fo').text).toBe('The quick brown ');
    expect(r.push('x jumps').text).toBe('fox ');
  });

  it('block: the output stops right before the match, for any split', () => {
    const q = policy({ card: 'block' });
    const text = 'Your card: 4111 1111 1111 1111 is on file.';
    for (let i = 0; i <= text.length; i++) {
      const { out, blocked } = stream(q, [text.slice(0, i), text.slice(i)]);
      expect(blocked).toBe(true);
      expect(out.join('')).toBe('Your card: ');
    }
  });

  it('releases a tail longer than maxHold rather than holding it forever', () => {
    const r = new StreamRedactor(p, 100);
    const word = 'a'.repeat(150);
    expect(r.push(word).text).toBe(word);
  });

  it('masks, hashes (stable, salted, normalised) or calls a function', () => {
    expect(
      policy().redact('a@b.io +1 415 555 2671 4111111111111111 DE89370400440532013000 AKIAIOSFODNN7EXAMPLE').text,
    ).toBe('[EMAIL] [PHONE] ****1111 [IBAN] [SECRET]');
    const h = policy({ email: 'hash' });
    const first = h.redact('Jane@Example.com').text;
    expect(first).toMatch(/^\[EMAIL:[0-9a-f]{12}\]$/);
    expect(h.redact('jane@example.com').text).toBe(first);
    expect(h.redact('john@example.com').text).not.toBe(first);
    expect(new RedactionPolicy({ email: 'hash' }, 'other salt').redact('jane@example.com').text).not.toBe(first);
    expect(policy({ phone: (m) => `<${m.value.replace(/\D/g, '').slice(-2)}>` }).redact('+1 415 555 2671').text).toBe(
      '<71>',
    );
    expect(policy({ email: 'off' }).redact('a@b.io').text).toBe('a@b.io');
  });
});
