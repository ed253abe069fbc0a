"use client";
import type { ReactNode } from "react";
import { Field, Input } from "@/app/_components/ui";
import { describeUtc, parseUtcField, UTC_FIELD_EXAMPLE } from "@/app/_lib/utc-time";

/**
 * A UTC time typed the way Ferry writes times ("28 Nov 2026, 22:00"), never a browser picker in
 * the machine's own order and clock. Under it, what was understood ("Saturday 28 Nov 2026, 22:00
 * UTC"), so a slip shows before it is sent; `extra` adds to that line (the window's length).
 */
export function UtcTimeField({
  label,
  value,
  error,
  extra,
  input,
}: {
  label: string;
  /** What is typed now (the form's watched value). */
  value: string | undefined;
  error: string | undefined;
  extra?: ReactNode;
  /** The form's registration of the field (react-hook-form's `register(name)`). */
  input: Record<string, unknown>;
}) {
  const understood = value ? parseUtcField(value) : null;
  const hint = understood ? (
    <>
      {describeUtc(understood)}
      {extra ? <>; {extra}</> : null}
    </>
  ) : error ? undefined : (
    // The error already says how to write it.
    `A day and a 24-hour time in UTC, such as ${UTC_FIELD_EXAMPLE}.`
  );
  return (
    <Field label={label} required error={error} hint={hint}>
      {(p) => <Input {...p} {...input} type="text" inputMode="text" autoComplete="off" spellCheck={false} placeholder={UTC_FIELD_EXAMPLE} />}
    </Field>
  );
}
