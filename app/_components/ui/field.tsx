"use client";
import { useId, type ReactNode } from "react";
import { cn } from "./cn";

/** What a control needs to be tied to its label, hint and error. */
export type ControlProps = {
  id: string;
  "aria-invalid": boolean | undefined;
  "aria-describedby": string | undefined;
};

export type FieldProps = {
  label: ReactNode;
  /** Shown under the control in red and announced with it; the control is marked invalid. */
  error?: string;
  hint?: ReactNode;
  /** Adds "(required)" to the label; validation stays with the server. */
  required?: boolean;
  className?: string;
  children: (control: ControlProps) => ReactNode;
};

/** A labelled form control with its hint and error, wired up for screen readers. */
export function Field({ label, error, hint, required, className, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(" ") || undefined;
  return (
    <div className={cn("space-y-1.5", className)}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
        {required ? <span className="font-normal text-slate-500"> (required)</span> : null}
      </label>
      {children({ id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy })}
      {hint ? (
        <p id={hintId} className="text-sm text-slate-600">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="text-sm font-medium text-red-700" data-field-error>
          {error}
        </p>
      ) : null}
    </div>
  );
}
