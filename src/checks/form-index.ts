import type { IncidentFieldDescriptor } from '../schemas/metadata.js';
import {
  boundedDistance,
  MAX_CANDIDATES,
  MAX_SUGGESTION_LENGTH,
  type SuggestionBudget,
  threshold,
} from './suggest.js';
import { checkWork } from './work.js';

/**
 * One form's descriptors, indexed for the extended-field check: by identifier, each
 * `listSource` as a set, and the names the suggestions compare. Built once per form the
 * metadata cache keeps (and once per check of descriptors given directly), so a check costs
 * the same against a list of 1,000,000 values as against ten. The parts are built on first
 * use: a form whose values are all known and in their lists never builds the suggestions'.
 */
export class FormIndex {
  readonly descriptors: readonly IncidentFieldDescriptor[];
  /** The first descriptor per identifier: a repeated one in the metadata must not shadow it. */
  readonly #byIdentifier = new Map<string, IncidentFieldDescriptor>();
  readonly #lists = new Map<IncidentFieldDescriptor, ListIndex>();
  #names: NameIndex | undefined;
  #required: IncidentFieldDescriptor[] | undefined;

  constructor(descriptors: readonly IncidentFieldDescriptor[]) {
    this.descriptors = descriptors;
    for (const d of descriptors)
      if (!this.#byIdentifier.has(d.identifier)) this.#byIdentifier.set(d.identifier, d);
  }

  /** The descriptor of an identifier (exact, case-sensitive), or `undefined`. */
  get(identifier: string): IncidentFieldDescriptor | undefined {
    return this.#byIdentifier.get(identifier);
  }

  /** The descriptor's `listSource` as a set, built on its first use. */
  list(descriptor: IncidentFieldDescriptor, list: readonly string[]): ListIndex {
    let index = this.#lists.get(descriptor);
    if (index === undefined) {
      index = new ListIndex(list);
      this.#lists.set(descriptor, index);
    }
    return index;
  }

  /** The form's required fields, found by `find` on first use (a form of 100,000 fields is read once). */
  required(
    find: (descriptors: readonly IncidentFieldDescriptor[]) => IncidentFieldDescriptor[],
  ): readonly IncidentFieldDescriptor[] {
    this.#required ??= find(this.descriptors);
    return this.#required;
  }

  /**
   * The known field closest to a mistyped identifier (see {@link NameIndex.closest}), the
   * comparisons paid from `budget`.
   */
  closest(identifier: string, budget: SuggestionBudget): Closest {
    this.#names ??= new NameIndex(this.descriptors);
    return this.#names.closest(identifier, budget);
  }
}

const cached = new WeakMap<readonly IncidentFieldDescriptor[], FormIndex>();

/**
 * The index of descriptors that nobody changes (the metadata cache's, which are never handed
 * out), built on first use and kept as long as the array is: once per cached form.
 */
export function cachedFormIndex(descriptors: readonly IncidentFieldDescriptor[]): FormIndex {
  let index = cached.get(descriptors);
  if (index === undefined) {
    index = new FormIndex(descriptors);
    cached.set(descriptors, index);
  }
  return index;
}

/**
 * A `listSource` as a set: a value is in the list when it equals an entry exactly; the hint
 * for one that is not is the first entry equal to it once both are trimmed and lower-cased.
 */
export class ListIndex {
  readonly #exact: Set<string>;
  #folded: Map<string, string> | undefined;
  readonly #list: readonly string[];

  constructor(list: readonly string[]) {
    this.#list = list;
    this.#exact = new Set(list);
    checkWork.listEntries += list.length;
  }

  has(value: string): boolean {
    return this.#exact.has(value);
  }

  /** The first entry equal to `value` but for case and surrounding spaces, or `undefined`. */
  near(value: string): string | undefined {
    if (this.#folded === undefined) {
      this.#folded = new Map();
      for (const entry of this.#list) {
        const key = fold(entry);
        checkWork.listEntries++;
        if (!this.#folded.has(key)) this.#folded.set(key, entry);
      }
    }
    return this.#folded.get(fold(value));
  }
}

function fold(text: string): string {
  return text.trim().toLowerCase();
}

/** What {@link FormIndex.closest} found. */
export interface Closest {
  /** A field within the tolerance (the earliest of the nearest), when one is. */
  close: IncidentFieldDescriptor | undefined;
  /** The nearest field compared, however far. */
  nearest: IncidentFieldDescriptor | undefined;
  /**
   * `complete`: every field was compared; `too_long`: the identifier is longer than any name
   * compared; `cut`: the comparisons stopped at a cap, after `compared` fields.
   */
  search: 'complete' | 'too_long' | 'cut';
  /** Fields compared. */
  compared: number;
}

interface Name {
  descriptor: IncidentFieldDescriptor;
  /** The identifier, lower-cased. */
  whole: string;
  /** Its field part (after the first `:`), lower-cased. */
  field: string;
}

/**
 * The identifiers of a form, lower-cased once, with the exact matches looked up in a map of
 * field parts: an identifier equal to a whole one but for case has its field part too, and the
 * first field part equal to it comes no later, so one map finds the earlier of both matches.
 */
class NameIndex {
  readonly #names: Name[] = [];
  readonly #byField = new Map<string, number>();

  constructor(descriptors: readonly IncidentFieldDescriptor[]) {
    descriptors.forEach((descriptor, i) => {
      const whole = descriptor.identifier.toLowerCase();
      const field = fieldPart(whole);
      this.#names.push({ descriptor, whole, field });
      if (!this.#byField.has(field)) this.#byField.set(field, i);
    });
  }

  /**
   * The known field closest to a mistyped identifier. Compares case-insensitively both whole
   * identifiers and the field parts after `:`, so a typo in either part, a wrong form prefix,
   * or a missing prefix is still recognised: `claim_form:cause_of_los`,
   * `clam_form:Cause_Of_Loss`, `other:Cause_Of_Loss` and `Cause of loss` all find
   * `claim_form:Cause_Of_Loss`. The field part sets the tolerance for both (a shared form
   * prefix must not make `f:Name` close to `f:Date`). Ties go to the earlier descriptor.
   *
   * An identifier equal to a field's but for case is found in any form, whatever its size; the
   * others are compared with at most {@link MAX_CANDIDATES} fields within the check's budget.
   */
  closest(identifier: string, budget: SuggestionBudget): Closest {
    if (identifier.length > MAX_SUGGESTION_LENGTH) {
      return { close: undefined, nearest: undefined, search: 'too_long', compared: 0 };
    }
    const wanted = identifier.toLowerCase();
    const wantedField = fieldPart(wanted);
    const found = this.#names[this.#byField.get(wantedField) ?? -1];
    if (found !== undefined) {
      const descriptor = found.descriptor;
      return { close: descriptor, nearest: descriptor, search: 'complete', compared: 1 };
    }
    let close: IncidentFieldDescriptor | undefined;
    let closeDistance = Number.POSITIVE_INFINITY;
    let nearest: IncidentFieldDescriptor | undefined;
    let nearestDistance = Number.POSITIVE_INFINITY;
    let compared = 0;
    for (const name of this.#names) {
      if (compared === MAX_CANDIDATES || !budget.left) {
        return { close, nearest, search: 'cut', compared };
      }
      budget.spend(1);
      // A name too long to be compared is never a suggestion.
      if (name.whole.length > MAX_SUGGESTION_LENGTH) continue;
      compared++;
      const tolerance = threshold(name.field);
      // Exact up to here: within the tolerance, or nearer than the nearest so far.
      const limit = Math.max(
        tolerance,
        Math.min(nearestDistance - 1, Math.max(wanted.length, name.whole.length)),
      );
      const whole = boundedDistance(wanted, name.whole, limit, budget);
      const field = boundedDistance(wantedField, name.field, limit, budget);
      const distance = Math.min(
        whole <= tolerance ? whole : Number.POSITIVE_INFINITY,
        field <= tolerance ? field : Number.POSITIVE_INFINITY,
      );
      if (distance < closeDistance) {
        close = name.descriptor;
        closeDistance = distance;
      }
      const raw = Math.min(whole, field);
      if (raw < nearestDistance) {
        nearest = name.descriptor;
        nearestDistance = raw;
      }
    }
    return { close, nearest, search: 'complete', compared };
  }
}

/** The part after the first `:` (identifiers have the form `<form_name>:<Field_Name>`). */
function fieldPart(identifier: string): string {
  // No `:` gives -1, so the slice from 0: the whole identifier.
  return identifier.slice(identifier.indexOf(':') + 1);
}
