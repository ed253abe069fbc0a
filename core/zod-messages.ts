/**
 * What a form field says when its schema gives no words of its own: a sentence a person would
 * write ("Enter a number, such as 7."), never zod's own ("Invalid input: expected number, received
 * NaN"). Installed once for zod in the browser (the forms) and on the server (procedures' input),
 * below every message a schema names itself, which always wins.
 */
import { z } from "zod";

type Issue = Parameters<NonNullable<NonNullable<Parameters<typeof z.config>[0]>["customError"]>>[0];

const n = (v: unknown) => (typeof v === "number" || typeof v === "bigint" ? Number(v).toLocaleString("en-GB") : String(v));

/** The sentence for an issue, or undefined to leave zod's (never reached for the kinds forms meet). */
export function humanZodMessage(issue: Issue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined || issue.input === null || issue.input === "") return "Fill this in.";
      if (issue.expected === "number" || issue.expected === "int" || issue.expected === "bigint") return "Enter a number, such as 7.";
      if (issue.expected === "date") return "Enter a date, such as 28 Nov 2026.";
      if (issue.expected === "boolean") return "Choose yes or no.";
      return "This value cannot be read here; enter it again.";
    case "too_small": {
      const { origin, minimum } = issue as Issue & { origin?: string; minimum?: unknown };
      if (origin === "string") return Number(minimum) <= 1 ? "Fill this in." : `Use at least ${n(minimum)} characters.`;
      if (origin === "number") return `Enter ${n(minimum)} or more.`;
      if (origin === "array" || origin === "set") return `Give at least ${n(minimum)}.`;
      return undefined;
    }
    case "too_big": {
      const { origin, maximum } = issue as Issue & { origin?: string; maximum?: unknown };
      if (origin === "string") return `Keep it to ${n(maximum)} characters or fewer.`;
      if (origin === "number") return `Enter ${n(maximum)} or less.`;
      if (origin === "array" || origin === "set") return `Give at most ${n(maximum)}.`;
      return undefined;
    }
    case "invalid_format": {
      const { format } = issue as Issue & { format?: string };
      if (format === "email") return "Enter an email address, such as name@example.com.";
      if (format === "url") return "Enter a web address, such as https://api.codat.io.";
      return "This is not written the way it should be; check it and enter it again.";
    }
    case "not_multiple_of":
      return "Enter a whole number.";
    case "invalid_value":
      return "Choose one of the options offered.";
    default:
      return undefined;
  }
}

let installed = false;

/** Makes `humanZodMessage` zod's fallback (once per process or page). */
export function installZodMessages(): void {
  if (installed) return;
  installed = true;
  z.config({ customError: humanZodMessage });
}

installZodMessages();
