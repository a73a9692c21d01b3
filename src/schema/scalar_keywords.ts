/**
 * The number and string keywords of a walk: bounds, `multipleOf` decided on decimal digits as
 * cfworker decides it, lengths in code points, and `pattern`.
 *
 * @module
 */
import { COSTS } from "./costs.ts";
import type { SchemaNode } from "./tree.ts";
import type { Walker } from "./walker.ts";

/** `decimalInteger` as cfworker has it: the integer coefficient and exponent of a number. */
function decimal(value: number): [bigint, number] {
  const [coefficient, exponent = "0"] = Math.abs(value).toString().split("e");
  const point = coefficient.indexOf(".");
  const fraction = point === -1 ? 0 : coefficient.length - point - 1;
  return [BigInt(coefficient.replace(".", "")), Number(exponent) - fraction];
}

/** `multipleOf` on decimal digits, exactly as cfworker decides it (no floating-point remainder). */
function isDecimalMultiple(value: number, divisor: number): boolean {
  const [valueDigits, valueExponent] = decimal(value);
  const [divisorDigits, divisorExponent] = decimal(divisor);
  const difference = valueExponent - divisorExponent;
  return difference >= 0
    ? (valueDigits * 10n ** BigInt(difference)) % divisorDigits === 0n
    : valueDigits % (divisorDigits * 10n ** BigInt(-difference)) === 0n;
}

/** Code points of a string, a lone surrogate counting as one (what `minLength` counts). */
function codePoints(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    count++;
  }
  return count;
}

/** `multipleOf`, exact: on integers directly, else on decimal digits. */
function multipleOf(walk: Walker, value: number, divisor: number): boolean {
  // Between safe integers the remainder is exact, and the answer the same.
  if (Number.isSafeInteger(value) && Number.isSafeInteger(divisor)) return value % divisor === 0;
  walk.charge(COSTS.decimalMultiple);
  return isDecimalMultiple(value, divisor);
}

/** The number keywords of `node` on `instance`. */
export function numberKeywords(walk: Walker, node: SchemaNode, instance: number): boolean {
  let valid = true;
  if (node.minimum !== undefined && instance < node.minimum) {
    valid = false;
    walk.fail("minimum");
  }
  if (node.maximum !== undefined && instance > node.maximum) {
    valid = false;
    walk.fail("maximum");
  }
  if (node.exclusiveMinimum !== undefined && instance <= node.exclusiveMinimum) {
    valid = false;
    walk.fail("exclusiveMinimum");
  }
  if (node.exclusiveMaximum !== undefined && instance >= node.exclusiveMaximum) {
    valid = false;
    walk.fail("exclusiveMaximum");
  }
  if (node.multipleOf !== undefined && !multipleOf(walk, instance, node.multipleOf)) {
    valid = false;
    walk.fail("multipleOf");
  }
  return valid;
}

/** The string keywords of `node` on `instance`. */
export function stringKeywords(walk: Walker, node: SchemaNode, instance: string): boolean {
  let valid = true;
  const { minLength, maxLength } = node;
  if (minLength !== undefined || maxLength !== undefined) {
    // A string has between ceil(units / 2) and units code points: count only in between.
    const units = instance.length;
    const least = Math.ceil(units / 2);
    let length = -1;
    const count = (): number => {
      if (length < 0) {
        walk.charge(Math.floor(units / COSTS.lengthCharacters));
        length = codePoints(instance);
      }
      return length;
    };
    if (
      minLength !== undefined &&
      (units < minLength || (least < minLength && count() < minLength))
    ) {
      valid = false;
      walk.fail("minLength");
    }
    if (
      maxLength !== undefined &&
      (least > maxLength || (units > maxLength && count() > maxLength))
    ) {
      valid = false;
      walk.fail("maxLength");
    }
  }
  if (node.pattern !== undefined && !walk.test(node.pattern, instance)) {
    valid = false;
    walk.fail("pattern");
  }
  return valid;
}
