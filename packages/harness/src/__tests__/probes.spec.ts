import { probeEventLoop, RESPONSIVE_MS } from './probes.js';

describe('probeEventLoop', () => {
  it('sees a synchronous hold longer than the responsive bound, and none while the loop is free', async () => {
    const held = probeEventLoop();
    await new Promise((r) => setTimeout(r, 5));
    // What an unguarded regular expression does: compute, without yielding, for 600 ms of CPU.
    const cpu = () => process.cpuUsage().user / 1000;
    const until = cpu() + RESPONSIVE_MS * 2;
    while (cpu() < until);
    expect(held.stop()).toBeGreaterThan(RESPONSIVE_MS);

    const free = probeEventLoop();
    await new Promise((r) => setTimeout(r, 100));
    expect(free.stop()).toBeLessThan(RESPONSIVE_MS);
  }, 60_000); // 600 ms of CPU can take seconds of wall time on a loaded machine
});
