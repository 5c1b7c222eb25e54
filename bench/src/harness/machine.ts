import { readFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The machine a run measured on: CPU model, cores, memory, Node version, OS, and how busy it was. */
export function describeMachine(): string {
  const cpu = cpus();
  const model = (cpu[0]?.model ?? 'unknown CPU').replace(/\s+/g, ' ').trim();
  const gib = (totalmem() / 2 ** 30).toFixed(1);
  const load = loadavg()[0]!.toFixed(2);
  return `${model}, ${cpu.length} cores, ${gib} GiB memory, Node ${process.version}, ${platform()} ${release()} ${arch()} (load average ${load} at start)`;
}

/** The installed version of a package resolvable from the bench package, e.g. `openai 7.59.0`. */
export function packageVersion(name: string): string {
  try {
    let dir = dirname(fileURLToPath(import.meta.resolve(name)));
    for (;;) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (pkg.name === name) return `${name} ${pkg.version}`;
      } catch {
        // no package.json here
      }
      const up = dirname(dir);
      if (up === dir) return `${name} (version unknown)`;
      dir = up;
    }
  } catch {
    return `${name} (not installed)`;
  }
}
