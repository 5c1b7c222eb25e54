import { z } from 'zod';
import type { PendingReply } from '../../state/snapshot.js';
import { defineTool, type Tool } from '../../tool/tool.js';
import { RxscopeError } from '../../error/rxscope-error.js';
import { resumeOutput, validateResume, validateShutdownResume } from './resume-validation.js';

const write = defineTool({
  name: 'write',
  description: '',
  input: z.object({ path: z.string() }),
  execute: () => 'ok',
});
const tools = new Map<string, Tool>([['write', write]]);
const pending = (over: Partial<PendingReply> = {}): PendingReply => ({
  replyId: 'r1',
  iteration: 1,
  toolSteps: 1,
  message: { id: 'm', role: 'assistant', name: 'bot', content: [], createdAt: 0 },
  confirm: [
    { id: 'c1', name: 'write', input: { path: '/a' } },
    { id: 'c2', name: 'write', input: { path: '/b' } },
  ],
  external: [],
  usage: { inputTokens: 0, outputTokens: 0 },
  ...over,
});
const thrown = (f: () => unknown): RxscopeError => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(RxscopeError);
    return e as RxscopeError;
  }
  throw new Error('expected a throw');
};
const confirm = (results: unknown[], replyId?: string) =>
  ({ type: 'USER_CONFIRM_RESULT', results, ...(replyId ? { replyId } : {}) }) as Parameters<typeof validateResume>[0];

describe('validateResume refuses, with code invalid_use and a message saying what to do', () => {
  it.each([
    ['no suspended reply', undefined, confirm([]), 'agent "bot" has no suspended reply; send a user message instead.'],
    [
      'a resume for another reply',
      pending(),
      confirm([{ toolCallId: 'c1', confirmed: true }], 'r9'),
      'it is for reply r9, but the suspended reply is r1.',
    ],
    [
      'an unknown call id',
      pending(),
      confirm([{ toolCallId: 'zz', confirmed: true }]),
      'unknown tool call id "zz"; pending: c1, c2.',
    ],
    [
      'a duplicate answer',
      pending(),
      confirm([
        { toolCallId: 'c1', confirmed: true },
        { toolCallId: 'c1', confirmed: false },
      ]),
      'tool call c1 is answered twice.',
    ],
    [
      'a missing answer',
      pending(),
      confirm([{ toolCallId: 'c1', confirmed: true }]),
      'every pending call must be answered; missing: c2.',
    ],
    [
      'the wrong event type',
      pending({ confirm: [], external: [{ id: 'e1', name: 'write', input: {} }] }),
      confirm([{ toolCallId: 'e1', confirmed: true }]),
      'reply r1 is waiting for EXTERNAL_EXECUTION_RESULT.',
    ],
    [
      'a reply suspended by a shutdown',
      pending({ confirm: [], shutdown: { reason: 'SIGTERM', at: 1 } }),
      confirm([]),
      "reply r1 was suspended by a shutdown; continue it with { type: 'RESUME_REPLY' }.",
    ],
    [
      'results that are not an array',
      pending(),
      { type: 'USER_CONFIRM_RESULT', results: 'yes' } as unknown as Parameters<typeof validateResume>[0],
      'results must be an array.',
    ],
    [
      'a result without confirmed',
      pending(),
      confirm([{ toolCallId: 'c1', confirmed: true }, { toolCallId: 'c2' }]),
      'result for c2 needs "confirmed": true or false.',
    ],
  ])('%s', (_name, p, event, why) => {
    const err = thrown(() => validateResume(event, p, 'bot', tools));
    expect(err.code).toBe('invalid_use');
    expect(err.message).toBe(`Cannot resume with USER_CONFIRM_RESULT: ${why}`);
  });

  it('an external result without output', () => {
    const p = pending({ confirm: [], external: [{ id: 'e1', name: 'write', input: {} }] });
    const err = thrown(() =>
      validateResume({ type: 'EXTERNAL_EXECUTION_RESULT', results: [{ toolCallId: 'e1' }] } as never, p, 'bot', tools),
    );
    expect(err.code).toBe('invalid_use');
    expect(err.message).toBe(
      'Cannot resume with EXTERNAL_EXECUTION_RESULT: result for e1 needs an "output" (string or content blocks).',
    );
  });

  it('an edited input that fails the schema names the field and says to correct it', () => {
    const err = thrown(() =>
      validateResume(
        confirm([
          { toolCallId: 'c1', confirmed: true, input: { path: 3 } },
          { toolCallId: 'c2', confirmed: false },
        ]),
        pending(),
        'bot',
        tools,
      ),
    );
    expect(err.code).toBe('invalid_use');
    expect(err.message).toMatch(/the edited input of c1 \(write\) is invalid: .*path/);
    expect(err.message).toContain('Correct it and confirm again, or reject the call.');
  });
});

describe('validateResume accepts', () => {
  it('a confirmation answering every call once, in any order, for the suspended reply', () => {
    const p = pending();
    const event = confirm(
      [
        { toolCallId: 'c2', confirmed: false },
        { toolCallId: 'c1', confirmed: true, input: { path: '/edited' } },
      ],
      'r1',
    );
    const req = validateResume(event, p, 'bot', tools);
    expect(req.pending).toBe(p);
    expect(req.event).toEqual(event);
  });

  it('external results with string or block output', () => {
    const p = pending({
      confirm: [],
      external: [
        { id: 'e1', name: 'write', input: {} },
        { id: 'e2', name: 'write', input: {} },
      ],
    });
    const event = {
      type: 'EXTERNAL_EXECUTION_RESULT',
      results: [
        { toolCallId: 'e1', output: 'done' },
        { toolCallId: 'e2', output: [{ type: 'text', text: 'done' }] },
      ],
    } as never;
    expect(validateResume(event, p, 'bot', tools)).toEqual({ pending: p, event });
  });
});

describe('validateShutdownResume', () => {
  const shut = pending({ confirm: [], shutdown: { reason: 'SIGTERM', at: 1 } });

  it('accepts a RESUME_REPLY for a reply suspended by a shutdown', () => {
    expect(validateShutdownResume({ type: 'RESUME_REPLY' }, shut, 'bot')).toEqual({
      pending: shut,
      event: { type: 'RESUME_REPLY', replyId: 'r1' },
    });
  });

  it.each([
    ['no suspended reply', undefined, {}, 'agent "bot" has no suspended reply; send a user message instead.'],
    ['another reply', shut, { replyId: 'r9' }, 'it is for reply r9, but the suspended reply is r1.'],
    [
      'a reply waiting for confirmation',
      pending(),
      {},
      'reply r1 waits for USER_CONFIRM_RESULT, not for a resume after a shutdown.',
    ],
  ])('refuses %s', (_name, p, extra, why) => {
    const err = thrown(() => validateShutdownResume({ type: 'RESUME_REPLY', ...extra }, p, 'bot'));
    expect(err.code).toBe('invalid_use');
    expect(err.message).toBe(`Cannot resume with RESUME_REPLY: ${why}`);
  });
});

describe('resumeOutput', () => {
  const schemaOutput = { resume: jest.fn() } as unknown as Parameters<typeof resumeOutput>[1];

  it('refuses a resume without the schema the reply was started with, saying to pass it', () => {
    const err = thrown(() => resumeOutput(pending({ output: { schema: {}, repairs: 0 } }), undefined));
    expect(err.code).toBe('invalid_use');
    expect(err.message).toContain('Resume with the same schema: reply(resume, { output: schema }).');
  });

  it('refuses a schema for a reply started without one', () => {
    const err = thrown(() => resumeOutput(pending(), schemaOutput));
    expect(err.code).toBe('invalid_use');
    expect(err.message).toContain('it was started without one; resume it without {output}.');
  });

  it('accepts neither, and hands the saved schema to the output when both have one', () => {
    expect(() => resumeOutput(pending(), undefined)).not.toThrow();
    const saved = { schema: { type: 'object' }, repairs: 1 };
    resumeOutput(pending({ output: saved }), schemaOutput);
    expect(schemaOutput!.resume).toHaveBeenCalledWith(saved, 'r1');
  });
});
