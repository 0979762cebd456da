/**
 * One hidden value per object, for text-profile.ts's kept profiles. It is a private class field
 * stamped onto a plain object (a base constructor that returns the object it is given: the derived
 * class's field initialiser then adds the field to that object). Like a non-enumerable symbol
 * property, JSON, structured clone, spread, `Object.keys`/`getOwnPropertySymbols` and deep
 * equality never see it; unlike `Object.defineProperty` (a runtime call, ~0.2–0.4 µs a row at 1M
 * tasks), adding it is an inline-cached shape transition, like adding any property.
 */
class ReturnsItsArgument {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the return override is what stamps the field onto `target`.
    return target as ReturnsItsArgument;
  }
}

/** The value the next stamp starts with (a field initialiser takes no argument). */
let initial: unknown;

export class HiddenSlot extends ReturnsItsArgument {
  #value: unknown = initial;

  /** The value kept on `target`, or undefined. */
  static get(target: object): unknown {
    return #value in target ? (target as HiddenSlot).#value : undefined;
  }

  /** Keep `value` on `target`; a non-extensible object is left as it is (false). */
  static set(target: object, value: unknown): boolean {
    if (#value in target) {
      (target as HiddenSlot).#value = value;
      return true;
    }
    if (!Object.isExtensible(target)) return false;
    initial = value;
    new HiddenSlot(target);
    initial = undefined;
    return true;
  }
}
