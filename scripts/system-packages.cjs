// The Debian packages the test suite runs for real (never mocks, never skips), and how `npm test`
// gets them onto a fresh machine: installed when the user may (root, or passwordless sudo),
// otherwise one clear message naming the packages and the command, before anything else runs.
//
// Plain CommonJS without dependencies: it runs before `pnpm install`, with only Node.
'use strict';

const { spawnSync } = require('node:child_process');
const { accessSync, constants } = require('node:fs');
const { delimiter, join } = require('node:path');

/**
 * What the suite needs from the system. `present` says whether the machine already has it.
 * @type {ReadonlyArray<{ name: string; why: string; present: (env: NodeJS.ProcessEnv) => boolean }>}
 */
const REQUIRED = [
  {
    name: 'redis-server',
    why: 'the Redis session event bus tests start their own server',
    present: (env) => onPath('redis-server', env),
  },
  {
    name: 'chromium',
    why: "the Angular example's end-to-end test drives Debian's Chromium",
    present: (env) => isExecutable(env.CHROMIUM_PATH || '/usr/bin/chromium'),
  },
  {
    name: 'bubblewrap',
    why: "the harness's sandbox runs commands inside bwrap",
    present: (env) => onPath('bwrap', env),
  },
];

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(command, env) {
  return (env.PATH || '').split(delimiter).some((dir) => dir !== '' && isExecutable(join(dir, command)));
}

/**
 * Decides what to do, from facts about the machine only (no side effects), so every branch is
 * testable.
 *
 * @param {{ missing: string[]; isRoot: boolean; passwordlessSudo: boolean; hasAptGet: boolean }} facts
 * @returns {{ kind: 'ready' } | { kind: 'install'; commands: string[][] } | { kind: 'stop'; message: string }}
 */
function plan(facts) {
  const { missing } = facts;
  if (missing.length === 0) return { kind: 'ready' };
  const aptInstall = ['apt-get', 'install', '-y', '--no-install-recommends', ...missing];
  const manual = `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (!facts.hasAptGet) {
    return {
      kind: 'stop',
      message:
        `npm test needs these system packages, which are missing: ${missing.join(', ')}.\n` +
        `This machine has no apt-get; install them with its package manager ` +
        `(on Debian/Ubuntu: ${manual}), then run npm test again.`,
    };
  }
  if (facts.isRoot) return { kind: 'install', commands: [['apt-get', 'update', '-qq'], aptInstall] };
  if (facts.passwordlessSudo) {
    return {
      kind: 'install',
      commands: [
        ['sudo', '-n', 'apt-get', 'update', '-qq'],
        ['sudo', '-n', ...aptInstall],
      ],
    };
  }
  return {
    kind: 'stop',
    message:
      `npm test needs these system packages, which are missing: ${missing.join(', ')}.\n` +
      `Install them (this needs root), then run npm test again:\n  ${manual}`,
  };
}

/** The facts {@link plan} decides on, read from this machine. */
function probe(env = process.env) {
  const missing = REQUIRED.filter((p) => !p.present(env)).map((p) => p.name);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasAptGet = onPath('apt-get', env);
  const passwordlessSudo =
    !isRoot &&
    missing.length > 0 &&
    onPath('sudo', env) &&
    spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  return { missing, isRoot, passwordlessSudo, hasAptGet };
}

/** Probes, then installs or stops. Returns the process exit code. */
function main() {
  const facts = probe();
  const decision = plan(facts);
  if (decision.kind === 'ready') return 0;
  if (decision.kind === 'stop') {
    console.error(decision.message);
    return 1;
  }
  console.log(`Installing the system packages the tests need: ${facts.missing.join(', ')}`);
  for (const [cmd, ...args] of decision.commands) {
    const res = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (res.status !== 0) {
      console.error(
        `"${[cmd, ...args].join(' ')}" failed (exit ${res.status ?? res.signal}); npm test cannot run without ${facts.missing.join(', ')}.`,
      );
      return 1;
    }
  }
  const still = probe().missing;
  if (still.length > 0) {
    console.error(`After installing, still missing: ${still.join(', ')}.`);
    return 1;
  }
  return 0;
}

module.exports = { REQUIRED, plan, probe, main };

if (require.main === module) process.exit(main());
