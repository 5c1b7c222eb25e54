import { evaluate, timeIn } from './tools.js';

describe('calculator', () => {
  it.each([
    ['(1234 * 5678) / 2 + 17', 3503343],
    ['2 + 3 * 4', 14],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', -4],
    ['2 ^ -1', 0.5],
    ['10 % 4', 2],
    ['sqrt(16) + max(1, 7, 3) - abs(-2)', 9],
    ['1.5e3 / .5', 3000],
    ['round(pi * 100)', 314],
  ])('%s = %d', (expression, value) => {
    expect(evaluate(expression)).toBeCloseTo(value, 9);
  });

  it.each([
    ['2 +* 3', 'unexpected "*" at position 4'],
    ['(1 + 2', 'expected ")"'],
    ['foo(1)', 'unknown function "foo"'],
    ['1 / 0', 'no finite value'],
    ['process.exit(1)', 'unknown name "process"'],
  ])('rejects %s', (expression, message) => {
    expect(() => evaluate(expression)).toThrow(message);
  });
});

describe('current_time', () => {
  it('reads the time of a zone and its UTC offset', () => {
    const t = timeIn('Asia/Kolkata', new Date('2026-01-15T12:00:00Z'));
    expect(t).toEqual({
      timeZone: 'Asia/Kolkata',
      date: '2026-01-15',
      time: '17:30',
      weekday: 'Thursday',
      utcOffset: '+05:30',
    });
    expect(timeIn('UTC', new Date('2026-01-15T12:00:00Z')).utcOffset).toBe('+00:00');
  });

  it('names an unknown zone', () => {
    expect(() => timeIn('Mars/Olympus', new Date())).toThrow('Unknown time zone "Mars/Olympus"');
  });
});
