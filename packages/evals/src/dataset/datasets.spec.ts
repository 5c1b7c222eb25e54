import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { Agent, defineTool } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { type Cassette, RecordingMiddleware } from '@rxscope/middleware-builtin/recording';
import { cassetteFile } from '@rxscope/middleware-builtin/node';
import { EvalError } from '../eval-error.js';
import { loadCassetteCases, loadJsonlDataset } from '../node/load-dataset.js';
import { caseFromSession, casesFromCassette } from './from-recording.js';
import { parseJsonlDataset } from './jsonl.js';

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => `Sunny in ${city}`,
});
const turns = () => [
  { toolCalls: [{ name: 'weather', input: { city: 'Paris' } }] },
  { text: 'Sunny in Paris.' },
  { text: 'You are welcome.' },
];

describe('JSONL datasets', () => {
  it('reads the cases and reports each bad line with its number and reason; the rest still load', () => {
    const text = [
      '{"id":"a","input":"2 + 3?","expected":{"answer":"5","tools":[{"name":"add","input":{"a":2}}]},"metadata":{"tag":"math"}}',
      '',
      '{"input": "no id"}',
      '{oops',
      '["an array"]',
      '{"input": ""}',
      '{"input": "x", "expect": {}}',
      '{"id":"a","input":"again"}',
      '{"input":"x","expected":{"tools":[{"input":{}}]}}',
      '{"input":"last"}',
    ].join('\n');
    const d = parseJsonlDataset(text, { name: 'math' });
    expect(d.cases.map((c) => c.id)).toEqual(['a', 'math:3', 'math:10']);
    expect(d.cases[0]).toEqual({
      id: 'a',
      input: '2 + 3?',
      expected: { answer: '5', tools: [{ name: 'add', input: { a: 2 } }] },
      metadata: { tag: 'math' },
    });
    expect(d.errors.map((e) => e.line)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(d.errors[0]!.reason).toMatch(/^not JSON: /);
    expect(d.errors[1]!.reason).toBe('a case must be a JSON object with "input"');
    expect(d.errors[2]!.reason).toBe('"input" must be a non-empty string');
    expect(d.errors[3]!.reason).toBe('unknown field "expect" (a case has id, input, expected, metadata)');
    expect(d.errors[4]!.reason).toBe('id "a" is used by an earlier line');
    expect(d.errors[5]!.reason).toBe('"expected.tools[0]" must be {name: string, input?: object}');
  });

  it('loads a file named after it, and refuses a missing one clearly', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'evals-'));
    try {
      await writeFile(join(dir, 'smoke.jsonl'), '{"input":"hi"}\r\n{"input":"bye"}\n');
      const d = await loadJsonlDataset(join(dir, 'smoke.jsonl'));
      expect(d.name).toBe('smoke');
      expect(d.cases.map((c) => c.id)).toEqual(['smoke:1', 'smoke:2']);
      await expect(loadJsonlDataset(join(dir, 'missing.jsonl'))).rejects.toThrow(
        /missing\.jsonl: cannot read the dataset/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('cases from recordings', () => {
  it('turns each recorded reply of a cassette into a case with its own cassette, input and expectations', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'evals-'));
    try {
      const path = join(dir, 'forecast.json');
      const agent = new Agent({
        name: 'forecaster',
        model: new ScriptedChatModel(turns()),
        tools: [weather],
        middlewares: [new RecordingMiddleware({ save: cassetteFile(path) })],
      });
      await agent.call('Weather in Paris?');
      await agent.call('Thanks!');
      const cases = await loadCassetteCases([path]);
      expect(cases.map((c) => [c.id, c.input])).toEqual([
        ['forecast#1', 'Weather in Paris?'],
        ['forecast#2', 'Thanks!'],
      ]);
      expect(cases[0]!.expected).toEqual({
        answer: 'Sunny in Paris.',
        tools: [{ name: 'weather', input: { city: 'Paris' } }],
      });
      expect(cases[0]!.cassette!.modelCalls).toHaveLength(2);
      expect(cases[1]!.cassette!.modelCalls).toHaveLength(1);
      expect(cases[1]!.expected).toEqual({ answer: 'You are welcome.', tools: [] });
      expect(cases[0]!.metadata).toEqual({ source: 'cassette', agent: 'forecaster', finishReason: 'completed' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses what is not a cassette', () => {
    expect(() => casesFromCassette({} as Cassette, { name: 'x' })).toThrow(EvalError);
    expect(() => casesFromCassette(null as never, { name: 'x' })).toThrow(/x: not a cassette/);
  });

  it('turns a saved session turn into a case ("this production reply as a regression case")', async () => {
    const agent = new Agent({ name: 'forecaster', model: new ScriptedChatModel(turns()), tools: [weather] });
    await agent.call('Weather in Paris?');
    await agent.call('Thanks!');
    const state = JSON.parse(JSON.stringify(agent.saveState())) as ReturnType<Agent['saveState']>;
    expect(caseFromSession(state, { id: 'paris', turn: 1 })).toMatchObject({
      id: 'paris',
      input: 'Weather in Paris?',
      expected: { answer: 'Sunny in Paris.', tools: [{ name: 'weather', input: { city: 'Paris' } }] },
      metadata: { source: 'session', agent: 'forecaster', turn: 1 },
    });
    expect(caseFromSession(state, { id: 'last' })).toMatchObject({
      input: 'Thanks!',
      expected: { answer: 'You are welcome.', tools: [] },
    });
    expect(() => caseFromSession(state, { id: 'x', turn: 3 })).toThrow(
      /the session has 2 user turn\(s\); turn 3 does not exist/,
    );
  });
});
