import { Observable, Subject, Subscriber, lastValueFrom, of, throwError, toArray } from 'rxjs';
import { runSteps } from './step-trampoline.js';

type Ev = string;
const isNum = (v: Ev | number): v is number => typeof v === 'number';

describe('runSteps', () => {
  it('runs the steps in order, passing their events through, and completes after a step with no next step', async () => {
    const ran: number[] = [];
    const events = await lastValueFrom(
      runSteps<Ev, number>(
        3,
        (n) => {
          ran.push(n);
          return n > 0 ? of(`tick ${n}`, n - 1) : of('liftoff');
        },
        isNum,
      ).pipe(toArray()),
    );
    expect(ran).toEqual([3, 2, 1, 0]);
    expect(events).toEqual(['tick 3', 'tick 2', 'tick 1', 'liftoff']);
  });

  it('a synchronous chain of 50,000 steps completes without growing the stack', () => {
    let count = 0;
    let last = '';
    let error: unknown;
    let completed = false;
    runSteps<Ev, number>(50_000, (n) => (n > 0 ? of(n - 1) : of('end')), isNum).subscribe({
      next: (e) => {
        count++;
        last = e;
      },
      error: (e: unknown) => (error = e),
      complete: () => (completed = true),
    });
    expect(error).toBeUndefined();
    expect(completed).toBe(true);
    expect(count).toBe(1);
    expect(last).toBe('end');
  });

  it('waits for an asynchronous step before starting the next', async () => {
    const order: string[] = [];
    const run = (n: number) =>
      new Observable<Ev | number>((s) => {
        order.push(`start ${n}`);
        void Promise.resolve().then(() => {
          s.next(`ev ${n}`);
          if (n < 2) s.next(n + 1);
          order.push(`end ${n}`);
          s.complete();
        });
      });
    const events = await lastValueFrom(runSteps<Ev, number>(0, run, isNum).pipe(toArray()));
    expect(events).toEqual(['ev 0', 'ev 1', 'ev 2']);
    expect(order).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('an error of a step ends the sequence with that error, after the events before it; no further step runs', async () => {
    const ran: number[] = [];
    const boom = new Error('step failed');
    const seen: Ev[] = [];
    const result = lastValueFrom(
      runSteps<Ev, number>(
        0,
        (n) => {
          ran.push(n);
          return n === 1 ? throwError(() => boom) : of(`ev ${n}`, n + 1);
        },
        isNum,
      ),
    ).catch((e: unknown) => e);
    runSteps<Ev, number>(0, (n) => (n === 1 ? throwError(() => boom) : of(`ev ${n}`, n + 1)), isNum).subscribe({
      next: (e) => seen.push(e),
      error: () => undefined,
    });
    expect(await result).toBe(boom);
    expect(ran).toEqual([0, 1]);
    expect(seen).toEqual(['ev 0']);
  });

  it('unsubscribing while a step runs tears it down and the next step never starts', () => {
    const started: number[] = [];
    const torn: number[] = [];
    const gates = new Map<number, Subject<Ev | number>>();
    const run = (n: number) =>
      new Observable<Ev | number>((s) => {
        started.push(n);
        const gate = new Subject<Ev | number>();
        gates.set(n, gate);
        const sub = gate.subscribe(s);
        return () => {
          torn.push(n);
          sub.unsubscribe();
        };
      });
    const seen: Ev[] = [];
    const sub = runSteps<Ev, number>(0, run, isNum).subscribe((e) => seen.push(e));
    gates.get(0)!.next('ev 0');
    sub.unsubscribe();
    gates.get(0)!.next(1);
    gates.get(0)!.complete();
    expect(started).toEqual([0]);
    expect(torn).toEqual([0]);
    expect(seen).toEqual(['ev 0']);
  });

  it('unsubscribing from inside a synchronous step stops it at once and no next step starts', () => {
    const started: number[] = [];
    const seen: Ev[] = [];
    const consumer: Subscriber<Ev> = new Subscriber<Ev>({
      error: () => undefined,
      complete: () => undefined,
      next: (e: Ev) => {
        seen.push(e);
        if (e === 'a0') consumer.unsubscribe();
      },
    });
    runSteps<Ev, number>(
      0,
      (n) => {
        started.push(n);
        return n < 3 ? of(`a${n}`, `b${n}`, n + 1) : of('end');
      },
      isNum,
    ).subscribe(consumer);
    expect(seen).toEqual(['a0']);
    expect(started).toEqual([0]);
  });
});
