// Probes for the reliability tests: how long the event loop was held, how much memory grew.
//
// probeEventLoop: a 1 ms interval timer notes the longest gap between two of its ticks. A search
// that yields every few milliseconds keeps the gap small; one call that runs for seconds shows as
// a gap of seconds. A gap counts as the least of three clocks, because a loaded machine inflates
// each in its own way while a real hold shows on all three:
// - wall time: the whole process left off the CPU (940 ms measured with the suite and benchmarks
//   running at once) held nothing;
// - the process's CPU time: it counts the collector's and libuv's threads too (520 ms measured
//   in CI while the test read a 4 MB file);
// - the event loop's active time: it counts JavaScript preempted by the machine.
import { truncateSync, writeFileSync } from 'node:fs';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/**
 * The longest hold a responsive search may show. The attacks these tests replay held the loop for
 * seconds (8.4 s for 27 "a", doubling with each more; the tests use lines of thousands); a
 * garbage collection or a search slice on a busy machine stays far below.
 */
export const RESPONSIVE_MS = 300;

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Starts measuring; `stop()` returns the longest hold in milliseconds (see above). */
export function probeEventLoop(): { stop: () => number } {
  let last = performance.now();
  let lastCpu = cpuMs();
  let lastLoop: EventLoopUtilization = performance.eventLoopUtilization();
  let longest = 0;
  const held = (): number =>
    Math.min(performance.now() - last, cpuMs() - lastCpu, performance.eventLoopUtilization(lastLoop).active);
  const timer = setInterval(() => {
    longest = Math.max(longest, held());
    last = performance.now();
    lastCpu = cpuMs();
    lastLoop = performance.eventLoopUtilization();
  }, 1);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(longest, held());
    },
  };
}

/**
 * Runs `work` while watching the process's resident memory every 2 ms; resolves with its result
 * and the largest growth seen (bytes over the resident size before it started).
 */
export async function peakMemoryGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const before = process.memoryUsage.rss();
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    // The kernel's own high-water mark catches a peak between two samples.
    const kernelGrowth = process.resourceUsage().maxRSS * 1024 - Math.max(peakBefore, before);
    return { result, growth: Math.max(peak - before, kernelGrowth) };
  } finally {
    clearInterval(timer);
  }
}

/** A sparse file of `bytes` (no disk used): a 1 GB file for the cost of none; `head` is its start. */
export function sparseFile(path: string, bytes: number, head = ''): void {
  writeFileSync(path, head);
  truncateSync(path, bytes);
}
