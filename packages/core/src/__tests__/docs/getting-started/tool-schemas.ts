import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { defineTool, jsonSchemaInput } from '../../../index.js';

// valibot: its JSON Schema comes from @valibot/to-json-schema.
export const convert = defineTool({
  name: 'convert',
  description: 'Converts an amount between currencies',
  input: toStandardJsonSchema(v.object({ amount: v.number(), from: v.string(), to: v.string() })),
  execute: ({ amount, from, to }) => `${amount} ${from} is ${(amount * 1.1).toFixed(2)} ${to}`,
});

// arktype: as it is (it gives its JSON Schema itself).
export const roll = defineTool({
  name: 'roll',
  description: 'Rolls dice',
  input: type({ dice: '1 <= number.integer <= 10' }),
  execute: ({ dice }) => String(dice * 3),
});

// A plain JSON Schema: validated with ajv; the input type is yours to give (else `unknown`).
export const lookup = defineTool({
  name: 'lookup',
  description: 'Looks an order up',
  input: jsonSchemaInput<{ orderId: string }>({
    type: 'object',
    properties: { orderId: { type: 'string', pattern: '^A-[0-9]+$' } },
    required: ['orderId'],
  }),
  execute: ({ orderId }) => `Order ${orderId}: shipped`,
});
