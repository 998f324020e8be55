// A field list that the compiler holds equal to a type's keys: the client's types and the drift test share one truth.

/** Every key of T, each once, or a compile error naming what is missing. */
export function fieldsOf<T>() {
  return <const Keys extends readonly (keyof T & string)[]>(
    ...keys: Keys & ([Exclude<keyof T, Keys[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, Keys[number]> })
  ): Keys => keys;
}
