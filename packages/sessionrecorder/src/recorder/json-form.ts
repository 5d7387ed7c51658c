import type { JsonValue } from "../backend/event-backend.js";

/**
 * The JSON form of a value of type `T`, as `JSON.stringify` writes it and {@link toJsonEvent}
 * stores it: a `toJSON` method's result (a `Date` becomes its ISO `string`), functions, symbols
 * and `undefined` fields left out, `readonly` dropped; a union stays a union, so a replayed SDK
 * event still narrows on `event.type`. `unknown` (and `any`) give {@link JsonValue}.
 */
export type JsonForm<T> = unknown extends T
  ? JsonValue
  : T extends { toJSON(...args: never[]): infer R }
    ? JsonForm<R>
    : T extends string | number | boolean | null
      ? T
      : T extends undefined | symbol | bigint | ((...args: never[]) => unknown)
        ? never
        : T extends readonly (infer U)[]
          ? JsonForm<U>[]
          : T extends object
            ? { -readonly [K in keyof T as K extends string ? ([JsonForm<T[K]>] extends [never] ? never : K) : never]: JsonForm<T[K]> }
            : never;
