/**
 * Merges caller-supplied limits over their defaults. A limit passed as `undefined` keeps its
 * default (a spread would lift the bound); NaN or a negative number throws a `RangeError`
 * instead of silently disabling the bound.
 *
 * @param defaults every limit with its default
 * @param overrides the caller's limits, any subset
 *
 * @category Identity
 */
export function resolveLimits<Limits extends { readonly [Name in keyof Limits]: number }>(
  defaults: Limits,
  overrides: Partial<Limits> = {},
): Limits {
  const resolved: { -readonly [Name in keyof Limits]: number } = { ...defaults };
  for (const name of Object.keys(defaults) as (keyof Limits)[]) {
    const value = overrides[name];
    if (value === undefined) continue;
    if (typeof value !== "number" || !(value >= 0)) {
      throw new RangeError(`limit ${String(name)} must be a number of at least 0`);
    }
    resolved[name] = value;
  }
  return resolved as Limits;
}
