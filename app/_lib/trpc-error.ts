/** Turns whatever a tRPC call threw into what a form shows: one message and per-field messages. */

export type FormError = { message: string; fields: Record<string, string> };

type ErrorData = {
  code?: string;
  fields?: Record<string, string> | null;
  zodError?: { formErrors?: string[]; fieldErrors?: Record<string, string[] | undefined> } | null;
};

function dataOf(error: unknown): ErrorData | null {
  if (!error || typeof error !== "object" || !("data" in error)) return null;
  const data = (error as { data: unknown }).data;
  return data && typeof data === "object" ? (data as ErrorData) : null;
}

/** The tRPC error code (e.g. "NOT_FOUND"), if the error carries one. */
export function errorCode(error: unknown): string | null {
  return dataOf(error)?.code ?? null;
}

/**
 * Field messages come from the domain's AppError (`data.fields`) or zod (`data.zodError`);
 * the first message of each field wins. A zod error's own message is a JSON dump of issues,
 * so the form gets a plain summary instead.
 */
export function toFormError(error: unknown): FormError {
  const data = dataOf(error);
  const fields: Record<string, string> = {};
  for (const [name, messages] of Object.entries(data?.zodError?.fieldErrors ?? {})) {
    const first = messages?.[0];
    if (first) fields[name] = first;
  }
  for (const [name, message] of Object.entries(data?.fields ?? {})) {
    if (message) fields[name] = message;
  }
  const formMessage = data?.zodError?.formErrors?.[0];
  if (data?.zodError) {
    return { message: formMessage ?? "Some fields need your attention.", fields };
  }
  const raw = error instanceof Error ? error.message : typeof error === "string" ? error : "";
  const message = raw.trim() || "Something went wrong. Please try again.";
  return { message, fields };
}
