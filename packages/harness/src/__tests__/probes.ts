// Probes for the reliability tests: how long the event loop was held, how much memory grew.
//
// probeEventLoop: a 1 ms interval timer notes the longest gap between two of its ticks, counted in
// the CPU time the process used during the gap. A search that yields every few milliseconds keeps
// the gap small; one call that runs for seconds shows as a gap of seconds. CPU time rather than
// wall time because a loaded machine can leave the whole process off the CPU for most of a second
// (940 ms measured with the suite and benchmarks running at once): that gap held nothing.
import { truncateSync, writeFileSync } from 'node:fs';

/**
 * The longest hold a responsive search may show. The attacks these tests replay held the loop for
 * seconds (8.4 s for 27 "a", doubling with each more); a garbage collection or a slice on a busy
 * machine stays far below.
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
  let longest = 0;
  const held = (): number => Math.min(performance.now() - last, cpuMs() - lastCpu);
  const timer = setInterval(() => {
    longest = Math.max(longest, held());
    last = performance.now();
    lastCpu = cpuMs();
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
