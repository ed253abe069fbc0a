/**
 * Counts in words, the one way every screen, mail, timeline and report says them: the form of a
 * word that goes with a number is chosen by `Intl.PluralRules` (CLDR's rules for English), never
 * by a hand-written `n === 1 ? … : …`, so "1 warning", "0 companies" and "1.5 days" come out
 * right everywhere. Pure: the browser imports it too.
 */

const RULES = new Intl.PluralRules("en-GB");
const NUMBER = new Intl.NumberFormat("en-GB");

/** A word's two English forms: the one `Intl.PluralRules` calls "one", and the rest ("other"). */
export type WordForms = { one: string; other: string };

/**
 * The form that goes with `n`: `plural(1, { one: "was", other: "were" })` → "was". For verbs,
 * pronouns and phrases that follow a count ("3 companies were", "its"/"their").
 */
export function plural(n: number, forms: WordForms): string {
  return RULES.select(n) === "one" ? forms.one : forms.other;
}

/** A count and its word: "1 company", "2,500 companies" (grouped the British way). */
export function countOf(n: number, one: string, other: string): string {
  return `${NUMBER.format(n)} ${plural(n, { one, other })}`;
}

/** "3 companies". */
export const companiesText = (n: number) => countOf(n, "company", "companies");
/** "1 warning". */
export const warningsText = (n: number) => countOf(n, "warning", "warnings");
/** "1 poll". */
export const pollsText = (n: number) => countOf(n, "poll", "polls");
/** "2 days". */
export const daysText = (n: number) => countOf(n, "day", "days");
/** "1 record". */
export const recordsText = (n: number) => countOf(n, "record", "records");

const LIST = new Intl.ListFormat("en-GB", { style: "long", type: "conjunction" });

/** Items as one phrase: "step 2 and step 4", "a, b and c" (no serial comma, the British way). */
export function listText(items: readonly string[]): string {
  return LIST.format(items);
}
