import { BehaviorSubject, EMPTY, map, NEVER, of, Subject, throwError } from 'rxjs';
import { z } from 'zod';
import { Agent, defineTool, type ModelRequest, textOfMsg } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { run } from '../__tests__/helpers.js';
import { resilient } from '../resilient/index.js';
import { DynamicPromptMiddleware, formatCurrentTime } from './index.js';

/** The system prompt of a request ('' when there is none). */
const systemOf = (r: ModelRequest) => (r.messages[0]?.role === 'system' ? textOfMsg(r.messages[0]) : '');

const add = defineTool({
  name: 'add',
  description: 'Adds',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

describe('formatCurrentTime', () => {
  const instant = new Date('2026-03-14T08:26:09Z');

  it('writes the date, time, weekday and zone the model should read', () => {
    expect(formatCurrentTime(instant, { timeZone: 'Europe/Berlin' })).toBe(
      '2026-03-14 09:26 (Saturday), Europe/Berlin (GMT+01:00)',
    );
    expect(formatCurrentTime(instant, { timeZone: 'America/New_York', precision: 'second' })).toBe(
      '2026-03-14 04:26:09 (Saturday), America/New_York (GMT-04:00)',
    );
    expect(formatCurrentTime(instant, { timeZone: 'Asia/Tokyo', precision: 'date' })).toBe(
      '2026-03-14 (Saturday), Asia/Tokyo',
    );
  });
});

describe('DynamicPromptMiddleware', () => {
  it('appends the current time in the chosen time zone', async () => {
    const model = new ScriptedChatModel([{ text: 'ok' }]);
    const middleware = new DynamicPromptMiddleware({
      currentTime: { timeZone: 'Europe/Berlin' },
      now: () => new Date('2026-03-14T08:26:00Z'),
    });
    const agent = new Agent({ sysPrompt: 'You are helpful.', model, middlewares: [middleware] });
    await run(agent, 'what time is it?');

    expect(systemOf(model.requests[0]!)).toBe(
      'You are helpful.\n\n## Current time\n2026-03-14 09:26 (Saturday), Europe/Berlin (GMT+01:00)',
    );
    expect(agent.context.some((m) => m.role === 'system')).toBe(false); // the prompt is never stored
  });

  it('takes strings, functions, promises and the latest value of Observables that never complete', async () => {
    const profile$ = new BehaviorSubject({ name: 'Ada', language: 'English' });
    const model = new ScriptedChatModel([{ text: 'one' }, { text: 'two' }]);
    const agent = new Agent({
      sysPrompt: 'Base.',
      model,
      middlewares: [
        new DynamicPromptMiddleware({
          sections: [
            { title: 'Rules', value: 'Be brief.' },
            { title: 'User', value: profile$.pipe(map((p) => `${p.name}; answer in ${p.language}.`)) },
            { title: 'Session', value: (ctx) => `id ${ctx.sessionId}` },
            { title: 'Tickets', value: () => Promise.resolve('#1, #2') },
            { title: 'Weather', value: () => of('sunny') },
          ],
        }),
      ],
    });
    await run(agent, 'hi');
    profile$.next({ name: 'Grace', language: 'French' });
    await run(agent, 'salut');

    expect(systemOf(model.requests[0]!)).toBe(
      [
        'Base.',
        '## Rules\nBe brief.',
        '## User\nAda; answer in English.',
        `## Session\nid ${agent.sessionId}`,
        '## Tickets\n#1, #2',
        '## Weather\nsunny',
      ].join('\n\n'),
    );
    expect(systemOf(model.requests[1]!)).toContain('## User\nGrace; answer in French.');
  });

  it('recomputes the sections at every reasoning step', async () => {
    let n = 0;
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] }, { text: '3' }]);
    const agent = new Agent({
      model,
      tools: [add],
      middlewares: [new DynamicPromptMiddleware({ sections: [{ title: 'Step', value: () => String(++n) }] })],
    });
    await run(agent, 'add');

    expect(model.requests.map(systemOf)).toEqual(['## Step\n1', '## Step\n2']);
  });

  it('leaves out a section that has no value in time, completes empty, or is blank: the step never hangs', async () => {
    const model = new ScriptedChatModel([{ text: 'ok' }]);
    const agent = new Agent({
      sysPrompt: 'Base.',
      model,
      middlewares: [
        new DynamicPromptMiddleware({
          timeoutMs: 20,
          sections: [
            { title: 'Never', value: NEVER },
            { title: 'Silent subject', value: new Subject<string>() },
            { title: 'Empty', value: () => EMPTY },
            { title: 'Blank', value: '  ' },
            { title: 'Kept', value: 'yes' },
          ],
        }),
      ],
    });
    const started = Date.now();
    const { end } = await run(agent, 'hi');

    expect(end.finishReason).toBe('completed');
    expect(systemOf(model.requests[0]!)).toBe('Base.\n\n## Kept\nyes');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('fails the step when a section fails, naming it; resilient() runs the reply without the middleware instead', async () => {
    const failing = () =>
      new DynamicPromptMiddleware({
        sections: [{ title: 'Profile', value: () => throwError(() => new Error('profile service down')) }],
      });

    const model = new ScriptedChatModel([{ text: 'never' }]);
    const { end } = await run(new Agent({ sysPrompt: 'Base.', model, middlewares: [failing()] }), 'hi');
    expect(end).toMatchObject({
      finishReason: 'error',
      error: { message: 'DynamicPromptMiddleware: section "Profile" failed: profile service down' },
    });
    expect(model.requests).toHaveLength(0);

    const errors: unknown[] = [];
    const safeModel = new ScriptedChatModel([{ text: 'fine' }]);
    const safe = new Agent({
      sysPrompt: 'Base.',
      model: safeModel,
      middlewares: [resilient(failing(), { onError: (e) => errors.push(e) })],
    });
    expect((await run(safe, 'hi')).end.finishReason).toBe('completed');
    expect(systemOf(safeModel.requests[0]!)).toBe('Base.');
    expect(errors).toHaveLength(1);
  });

  it('formats sections as asked, and makes a prompt of them alone when there is no system prompt', async () => {
    const model = new ScriptedChatModel([{ text: 'ok' }]);
    const agent = new Agent({
      model,
      middlewares: [
        new DynamicPromptMiddleware({ sections: [{ title: 'A', value: '1' }], format: (t, v) => `<${t}>${v}</${t}>` }),
      ],
    });
    await run(agent, 'hi');

    expect(systemOf(model.requests[0]!)).toBe('<A>1</A>');
  });
});
