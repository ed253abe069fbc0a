/**
 * Text from people and from other systems (a person's or company's name, a service's error text)
 * made safe to put inside one server log line. A line break in a name would otherwise start a
 * line of its own, which a reader or a log collector takes for an entry Ferry wrote (a forged
 * "[next-auth][error]…" or "[mail]…"); terminal escape sequences could rewrite what is on screen.
 */

const ESCAPES: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * Every control character (C0, DEL, C1, and the Unicode line and paragraph separators) written
 * as a visible escape (`\n`, `\r`, `\t`, `\u001b`…); everything else is kept as it is.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** `value` as text that stays on one log line (an Error gives its message). */
export function logSafe(value: unknown): string {
  const text = typeof value === "string" ? value : value instanceof Error ? value.message : String(value);
  return text.replace(UNSAFE, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
