// The set-up step of `npm test`: what it decides on each kind of machine, and that a machine it
// may not install on gets one message and an immediate stop instead of a page of failures.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plan, probe } from './system-packages.cjs';

const script = join(__dirname, 'system-packages.cjs');

describe('plan', () => {
  const base = { isRoot: false, passwordlessSudo: false, hasAptGet: true };

  it('does nothing when every package is there, whoever runs it', () => {
    expect(plan({ ...base, missing: [] })).toEqual({ kind: 'ready' });
    expect(plan({ ...base, missing: [], hasAptGet: false })).toEqual({ kind: 'ready' });
  });

  it('as root installs exactly the missing packages after refreshing the package lists', () => {
    expect(plan({ ...base, isRoot: true, missing: ['redis-server', 'bubblewrap'] })).toEqual({
      kind: 'install',
      commands: [
        ['apt-get', 'update', '-qq'],
        ['apt-get', 'install', '-y', '--no-install-recommends', 'redis-server', 'bubblewrap'],
      ],
    });
  });

  it('with passwordless sudo installs through sudo -n (never a password prompt)', () => {
    const decision = plan({ ...base, passwordlessSudo: true, missing: ['chromium'] });
    expect(decision).toEqual({
      kind: 'install',
      commands: [
        ['sudo', '-n', 'apt-get', 'update', '-qq'],
        ['sudo', '-n', 'apt-get', 'install', '-y', '--no-install-recommends', 'chromium'],
      ],
    });
  });

  it('without root or sudo stops with one message naming the packages and the command', () => {
    const decision = plan({ ...base, missing: ['redis-server', 'chromium'] });
    expect(decision.kind).toBe('stop');
    const message = decision.kind === 'stop' ? decision.message : '';
    expect(message).toContain('redis-server, chromium');
    expect(message).toContain(
      'sudo apt-get update && sudo apt-get install -y --no-install-recommends redis-server chromium',
    );
  });

  it('without apt-get stops even as root, and still names the packages and the Debian command', () => {
    const decision = plan({ ...base, isRoot: true, hasAptGet: false, missing: ['bubblewrap'] });
    expect(decision.kind).toBe('stop');
    const message = decision.kind === 'stop' ? decision.message : '';
    expect(message).toContain('bubblewrap');
    expect(message).toContain('no apt-get');
    expect(message).toContain('apt-get install -y --no-install-recommends bubblewrap');
  });
});

describe('probe and the script', () => {
  let dir: string;
  const fake = (name: string): string => {
    const file = join(dir, name);
    writeFileSync(file, '#!/bin/sh\nexit 0\n');
    chmodSync(file, 0o755);
    return file;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxscope-system-packages-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the commands on PATH and Chromium at CHROMIUM_PATH', () => {
    fake('redis-server');
    fake('bwrap');
    const chromium = fake('chromium');
    expect(probe({ PATH: dir, CHROMIUM_PATH: chromium }).missing).toEqual([]);
    expect(probe({ PATH: dir, CHROMIUM_PATH: join(dir, 'absent') }).missing).toEqual(['chromium']);
    expect(probe({ PATH: '', CHROMIUM_PATH: join(dir, 'absent') }).missing).toEqual([
      'redis-server',
      'chromium',
      'bubblewrap',
    ]);
  });

  it('a file that is not executable does not count', () => {
    writeFileSync(join(dir, 'redis-server'), '');
    expect(probe({ PATH: dir, CHROMIUM_PATH: join(dir, 'absent') }).missing).toContain('redis-server');
  });

  it('exits 0 without a word when everything is present', () => {
    fake('redis-server');
    fake('bwrap');
    const res = spawnSync(process.execPath, [script], {
      env: { PATH: dir, CHROMIUM_PATH: fake('chromium') },
      encoding: 'utf8',
    });
    expect({ status: res.status, stdout: res.stdout, stderr: res.stderr }).toEqual({
      status: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('stops at once with the one message when it cannot install (no apt-get on this PATH)', () => {
    const res = spawnSync(process.execPath, [script], {
      env: { PATH: dir, CHROMIUM_PATH: join(dir, 'absent') }, // node itself is spawned by its path
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(res.status).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toHaveLength(2);
    expect(res.stderr).toContain('missing: redis-server, chromium, bubblewrap');
  });
});
