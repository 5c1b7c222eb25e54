/** `Array.isArray` without narrowing (a readonly array narrowed by it becomes `any[]`): for checks of input. */
export const isList = (value: unknown): boolean => Array.isArray(value);
