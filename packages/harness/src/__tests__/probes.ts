// Probes for the reliability tests: how long the event loop was held, how much memory grew.
//
// probeEventLoop: a 1 ms interval timer notes the longest gap between two of its ticks. A search
// that yields every few milliseconds keeps the gap small; one call that runs for seconds shows as
// a gap of seconds.
import { truncateSync, writeFileSync } from 'node:fs';

/**
 * The longest hold a responsive search may show. The attacks these tests replay held the loop for
 * seconds (8.4 s for 27 "a"); a 2-core CI machine running several test workers and child processes
 * can delay one timer tick by 100 ms or more on its own, so the bound sits well above that noise
 * and far below any unguarded search.
 */
export const RESPONSIVE_MS = 300;

/** Starts measuring; `stop()` returns the longest gap in milliseconds. */
export function probeEventLoop(): { stop: () => number } {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(longest, performance.now() - last);
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
