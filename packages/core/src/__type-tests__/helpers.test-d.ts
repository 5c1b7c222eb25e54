/**
 * Tiny assertion helpers for the type tests (no dependency). These files are never run: they
 * are checked by `tsc -b` through `tsconfig.spec.json`, so a wrong assertion, or an
 * `@ts-expect-error` whose line compiles, fails the typecheck.
 *
 * - `Expect<Equal<A, B>>` holds only when A and B are identical types (not mere assignability).
 * - `expectType<T>(value)` checks that `value` is assignable to T.
 * - `exact<T>()(value)` checks that the type of `value` is exactly T.
 */

/** True when A and B are identical (the compiler's own identity check, readonly and optional included). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only for `true`. */
export type Expect<T extends true> = T;

/** Compiles only when `value` is assignable to `T`. */
export function expectType<T>(value: T): T {
  return value;
}

/** Compiles only when the type of `value` is exactly `T`. */
export function exact<T>(): <U>(value: U & (Equal<T, U> extends true ? unknown : never)) => void {
  return () => undefined;
}

/** A value of any type, for expressions that are only type-checked, never run. */
export function declared<T>(): T {
  return undefined as T;
}
