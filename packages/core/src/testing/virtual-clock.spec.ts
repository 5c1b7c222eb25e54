import { timer } from 'rxjs';
import { virtualClock } from './virtual-clock.js';

describe('virtualClock', () => {
  it('runs a timer exactly when the clock reaches it, never before', () => {
    const clock = virtualClock();
    const fired: number[] = [];
    timer(1000, clock.scheduler).subscribe(() => fired.push(clock.now()));
    clock.advanceBy(999);
    expect(fired).toEqual([]);
    expect(clock.pending()).toBe(1);
    clock.advanceBy(1);
    expect(fired).toEqual([1000]);
    expect(clock.pending()).toBe(0);
  });

  it('never moves backwards', () => {
    const clock = virtualClock();
    clock.advanceTo(500);
    clock.advanceTo(100);
    expect(clock.now()).toBe(500);
  });
});
