/**
 * The one application error. Domain code throws it; server/api/trpc.ts maps its codes to tRPC
 * codes in one place. Domain code never imports tRPC.
 */

export const APP_ERROR_CODES = [
  /** Input is well-formed but not acceptable; `fields` names the bad fields. */
  "BAD_INPUT",
  /** No session. */
  "UNAUTHENTICATED",
  /** Signed in, but this role or organisation may not do it. */
  "FORBIDDEN",
  /** The thing does not exist (or is not visible to the caller). */
  "NOT_FOUND",
  /** A unique value is taken (e.g. an email). */
  "CONFLICT",
  /** A checklist gate or state rule stops the action. */
  "PRECONDITION_FAILED",
  /** Too many attempts; try later. */
  "RATE_LIMITED",
] as const;

export type AppErrorCode = (typeof APP_ERROR_CODES)[number];

/** An expected failure with a message fit for the person who caused it. */
export class AppError extends Error {
  readonly code: AppErrorCode;
  /** Field-level messages for forms, keyed by input field name. */
  readonly fields?: Record<string, string>;

  constructor(code: AppErrorCode, message: string, options: { fields?: Record<string, string> } = {}) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.fields = options.fields;
  }
}

/** Shorthand for a single-field input error. */
export function fieldError(field: string, message: string): AppError {
  return new AppError("BAD_INPUT", message, { fields: { [field]: message } });
}
