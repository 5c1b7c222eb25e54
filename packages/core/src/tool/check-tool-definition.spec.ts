import { z } from 'zod';
import { OptionsError, RxscopeError, type OptionKeyRecord } from '../index.js';
import { defineTool, type ToolDefinition } from './tool.js';
import { TOOL_DEFINITION_KEYS } from './check-tool-definition.js';

// Compile-time: the key list is every field of ToolDefinition, no more, no less.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const keysAreComplete: OptionKeyRecord<ToolDefinition<any>> = TOOL_DEFINITION_KEYS;
void keysAreComplete;

function refusal(definition: unknown): OptionsError {
  try {
    defineTool(definition as never);
  } catch (e) {
    expect(e).toBeInstanceOf(OptionsError);
    expect(e).toBeInstanceOf(RxscopeError);
    return e as OptionsError;
  }
  throw new Error('defineTool did not refuse');
}

const base = { name: 'weather', description: 'The weather', input: z.object({ city: z.string() }) };

describe('defineTool refuses what it cannot use, as OptionsError with a stable code', () => {
  it.each([
    ['inputSchema (the AI SDK)', { inputSchema: base.input, execute: (): string => '' }, 'inputSchema', 'input'],
    ['schema (LangChain)', { schema: base.input, execute: (): string => '' }, 'schema', 'input'],
    [
      'parameters (OpenAI function tools)',
      { parameters: base.input, execute: (): string => '' },
      'parameters',
      'input',
    ],
    ['func (LangChain)', { input: base.input, func: () => '' }, 'func', 'execute'],
    ['a typo', { input: base.input, execute: (): string => '', readonly: true }, 'readonly', 'readOnly'],
    [
      'requireApproval',
      { input: base.input, execute: (): string => '', requireApproval: true },
      'requireApproval',
      'needsApproval',
    ],
  ])('%s names the rxscope spelling', (_label, fields, key, meant) => {
    const { name, description } = base;
    const e = refusal({ name, description, ...fields });
    expect(e.code).toBe('unknown_option');
    expect(e.option).toBe(`defineTool.${key}`);
    expect(e.message).toContain(`unknown option "${key}" of defineTool; did you mean "${meant}"?`);
    expect(e.message).toContain('Known: name, description, input, ');
  });

  it('a bad name, a missing or wrong execute and a non-object are invalid_option', () => {
    expect(refusal({ ...base, name: 'bad name!', execute: (): string => '' })).toMatchObject({
      code: 'invalid_option',
      option: 'defineTool.name',
    });
    expect(refusal({ ...base }).message).toBe('Tool "weather" needs an execute function, or external: true.');
    expect(refusal({ ...base, execute: 'run' })).toMatchObject({
      code: 'invalid_option',
      option: 'defineTool.execute',
    });
    expect(refusal('weather').message).toMatch(/^defineTool\(\) takes one object/);
    // A key set to undefined is absent, not a typo.
    expect(() => defineTool({ ...base, execute: (): string => '', ...{ inputSchema: undefined } })).not.toThrow();
  });
});
