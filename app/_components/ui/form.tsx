"use client";
import { useEffect, useRef, type FormHTMLAttributes } from "react";

export type FormProps = FormHTMLAttributes<HTMLFormElement> & {
  /**
   * Changes whenever a new set of errors arrives (pass the error object). Focus then moves to
   * the first invalid control, so keyboard and screen-reader users land on what needs fixing.
   */
  errorKey?: unknown;
};

/**
 * A form that validates on the server (noValidate: the browser's own bubbles would pre-empt the
 * field messages) and posts rather than gets, so a field never ends up in a URL.
 */
export function Form({ errorKey, children, ...rest }: FormProps) {
  const ref = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (!errorKey) return;
    ref.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [errorKey]);
  return (
    <form ref={ref} method="post" noValidate {...rest}>
      {children}
    </form>
  );
}
