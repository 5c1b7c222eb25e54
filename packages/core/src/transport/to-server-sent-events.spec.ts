// Frame timing with marbles, and the browser-safety of the main entry point.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { TestScheduler } from 'rxjs/testing';
import type { AgentEvent } from '../event/events.js';
import { encodeAgentEvent, encodeServerSentComment, encodeServerSentEvent } from './sse-encode.js';
import { toServerSentEvents } from './to-server-sent-events.js';

const e = (id: string): AgentEvent => ({
  id,
  type: 'CUSTOM',
  name: 'n',
  value: id,
  replyId: 'r',
  source: 'a',
  createdAt: 0,
});

describe('toServerSentEvents', () => {
  const scheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  const hb = encodeServerSentComment('heartbeat');

  it('sends a heartbeat only after heartbeatMs of silence, and completes with the events', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const events = cold('a 5ms b 20ms c|', { a: e('a'), b: e('b'), c: e('c') });
      const frames = toServerSentEvents(events, { heartbeatMs: 10 });
      expectObservable(frames).toBe('a 5ms b 9ms h 9ms h c|', {
        a: encodeAgentEvent(e('a')),
        b: encodeAgentEvent(e('b')),
        c: encodeAgentEvent(e('c')),
        h: hb,
      });
    });
  });

  it('starts with retry: when asked, passes errors on, and sends no heartbeats with heartbeatMs 0', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const events = cold('a 50ms #', { a: e('a') }, new Error('down'));
      expectObservable(toServerSentEvents(events, { heartbeatMs: 0, retryMs: 3000 })).toBe(
        '(ra) 47ms #',
        {
          r: 'retry: 3000\n\n',
          a: encodeAgentEvent(e('a')),
        },
        new Error('down'),
      );
    });
  });

  it('encodes fields on their own lines and never lets a value break a frame', () => {
    expect(encodeServerSentEvent({ id: 'a\nb', event: 'x\r', data: 'line 1\nline 2', retry: 10.7 })).toBe(
      'id: ab\nevent: x\nretry: 10\ndata: line 1\ndata: line 2\n\n',
    );
    expect(encodeServerSentComment('two\nlines')).toBe(': two\n: lines\n\n');
    const tricky: AgentEvent = { ...e('z'), value: 'a\nb\r\nc\u2028' } as AgentEvent;
    const frame = encodeAgentEvent(tricky);
    expect(frame.split('\n').filter((l) => l.startsWith('data: '))).toHaveLength(1);
    expect(encodeAgentEvent(tricky, { id: false })).not.toContain('id: ');
  });
});

describe('@rxscope/core stays browser-safe', () => {
  it('no module reachable from src/index.ts imports a node: module, a Node-only package or the optional AG-UI peers', () => {
    const root = resolve(__dirname, '..');
    const seen = new Set<string>();
    const offenders: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      // Code only: doc comments show imports in their examples.
      const source = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      for (const match of source.matchAll(
        /(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
      )) {
        const spec = match[1] ?? match[2]!;
        if (
          spec.startsWith('node:') ||
          spec.startsWith('@ag-ui/') ||
          ['ioredis', 'express', 'fastify', 'fs', 'http', 'net', 'path'].includes(spec)
        ) {
          offenders.push(`${file}: ${spec}`);
        }
        if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      }
    };
    visit(join(root, 'index.ts'));
    expect(seen.has(join(root, 'transport', 'from-agent-event-stream.ts'))).toBe(true);
    expect(offenders).toEqual([]);
  });

  it('@rxscope/core/node does not load the optional peers (ioredis is imported for types only, @ag-ui not at all)', () => {
    const root = resolve(__dirname, '..');
    const seen = new Set<string>();
    const offenders: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      // Code only: doc comments show imports in their examples.
      const source = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      for (const match of source.matchAll(/(import|export)(\s+type)?[^'"]*?from\s+['"]([^'"]+)['"]/g)) {
        const spec = match[3]!;
        const typeOnly = match[2] !== undefined;
        if (spec.startsWith('@ag-ui/') || (spec === 'ioredis' && !typeOnly)) offenders.push(`${file}: ${spec}`);
        if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      }
    };
    visit(join(root, 'node', 'index.ts'));
    expect(seen.has(join(root, 'node', 'sessions', 'redis-session-event-bus.ts'))).toBe(true);
    expect(offenders).toEqual([]);
  });
});
