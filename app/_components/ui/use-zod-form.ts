"use client";
/**
 * Forms with react-hook-form, validated by the same zod schema the server's procedure declares,
 * and refusals from the server put back on the fields they name.
 */
import { zodResolver } from "@hookform/resolvers/zod";
import { useForm, type DefaultValues, type FieldValues, type Path, type UseFormReturn } from "react-hook-form";
import type { z } from "zod";
import { toFormError } from "@/app/_lib/trpc-error";
// Fields without words of their own say a sentence, not zod's "Invalid input: expected number".
import "@/core/zod-messages";

export type ZodForm<S extends z.ZodType<FieldValues, FieldValues>> = UseFormReturn<z.input<S>, unknown, z.output<S>>;

/**
 * A form for `schema`: it validates on submit, then again as each field changes (so a field's
 * error clears once it is fixed), and focuses the first invalid field.
 */
export function useZodForm<S extends z.ZodType<FieldValues, FieldValues>>(
  schema: S,
  options: { defaultValues: DefaultValues<z.input<S>> },
): ZodForm<S> {
  return useForm<z.input<S>, unknown, z.output<S>>({
    resolver: zodResolver(schema),
    defaultValues: options.defaultValues,
    mode: "onSubmit",
    reValidateMode: "onChange",
    shouldFocusError: true,
  });
}

/**
 * Puts what the server refused on the form: each field message on its field (the first one
 * focused), and anything that names no field of this form as the form's own message.
 */
export function showServerError<T extends FieldValues, O extends FieldValues>(
  form: UseFormReturn<T, unknown, O>,
  error: unknown,
  /** Server field names that this form calls otherwise (e.g. `{ reason: "text" }`). */
  aliases: Record<string, Path<T>> = {},
): void {
  const refused = toFormError(error);
  const message = refused.message;
  const fields = Object.fromEntries(Object.entries(refused.fields).map(([name, text]) => [aliases[name] ?? name, text]));
  const known = new Set(Object.keys(form.getValues()));
  const onFields = Object.entries(fields).filter(([name]) => known.has(name));
  onFields.forEach(([name, text], i) => form.setError(name as Path<T>, { type: "server", message: text }, { shouldFocus: i === 0 }));
  const elsewhere = Object.entries(fields).find(([name]) => !known.has(name))?.[1];
  if (!onFields.length || elsewhere) form.setError("root.server", { type: "server", message: elsewhere ?? message });
}

/** The form's own message (a refusal that names no field of it), if any. */
export function formMessage<T extends FieldValues, O extends FieldValues>(form: UseFormReturn<T, unknown, O>): string | undefined {
  return form.formState.errors.root?.server?.message;
}

/** The message of one field, if it has one. */
export function fieldMessage<T extends FieldValues, O extends FieldValues>(form: UseFormReturn<T, unknown, O>, name: Path<T>): string | undefined {
  const message = form.getFieldState(name, form.formState).error?.message;
  return typeof message === "string" ? message : undefined;
}
