import { OptionsError } from '@rxscope/core';

/** Checks a limit option: a non-negative integer or `Infinity`. */
export function checkLimit(owner: string, name: string, value: number | undefined): number {
  if (value === undefined) return Infinity;
  if (value !== Infinity && (!Number.isInteger(value) || value < 0)) {
    throw new OptionsError(
      'invalid_option',
      `${owner}.${name}`,
      `${owner}: ${name} must be a non-negative integer (or Infinity), got ${value}.`,
    );
  }
  return value;
}
