/**
 * Validation of a platform's credential fields, shared by the sandbox's authorization call and
 * the app's token-file intake so both say the same thing about the same value.
 */
import type { CredentialField, ManagedPlatform } from "./platforms";

export type CredentialProblem = {
  /** The credential field the problem is about. */
  field: string;
  message: string;
};

export type CredentialCheck =
  | { ok: true; credentials: Record<string, string> }
  | { ok: false; problems: CredentialProblem[] };

const ISO_DATETIME_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?(Z|[+-]\d{2}:\d{2})$/;

function checkField(field: CredentialField, raw: unknown): string | null {
  if (raw === undefined || raw === null || raw === "") {
    return field.required ? `${field.name} is required: ${field.expected}.` : null;
  }
  if (typeof raw !== "string") return `${field.name} must be a string: ${field.expected}.`;
  const value = raw.trim();
  if (value !== raw) return `${field.name} has leading or trailing spaces: ${field.expected}.`;
  switch (field.format) {
    case "token":
      return /^\S{8,4096}$/.test(value) ? null : `${field.name} is malformed: ${field.expected}.`;
    case "datetime":
      return ISO_DATETIME_WITH_ZONE.test(value) && !Number.isNaN(Date.parse(value))
        ? null
        : `${field.name} is malformed: ${field.expected}.`;
    case "pattern":
      return field.pattern?.test(value) ? null : `${field.name} is malformed: ${field.expected}.`;
    default: {
      const never: never = field.format;
      return never;
    }
  }
}

/**
 * Checks a credential set against a platform's fields: every required field present, every value
 * well formed, no unknown fields. Returns the cleaned string map, or one problem per bad field.
 */
export function checkCredentials(platform: ManagedPlatform, input: Record<string, unknown>): CredentialCheck {
  const problems: CredentialProblem[] = [];
  const credentials: Record<string, string> = {};
  const known = new Set(platform.credentialFields.map((f) => f.name));
  for (const field of platform.credentialFields) {
    const problem = checkField(field, input[field.name]);
    if (problem) problems.push({ field: field.name, message: problem });
    else if (typeof input[field.name] === "string" && input[field.name] !== "") {
      credentials[field.name] = input[field.name] as string;
    }
  }
  for (const name of Object.keys(input)) {
    if (!known.has(name)) {
      problems.push({
        field: name,
        message: `${name} is not a ${platform.name} credential field; expected ${[...known].join(", ")}.`,
      });
    }
  }
  return problems.length ? { ok: false, problems } : { ok: true, credentials };
}
