import type { FormHTMLAttributes } from "react";

export type FormProps = FormHTMLAttributes<HTMLFormElement>;

/**
 * A form that validates with its schema and on the server (noValidate: the browser's own bubbles
 * would pre-empt the field messages) and posts rather than gets, so a field never ends up in a
 * URL. Focus moves to the first invalid field through react-hook-form (see use-zod-form.ts).
 */
export function Form({ children, ...rest }: FormProps) {
  return (
    <form method="post" noValidate {...rest}>
      {children}
    </form>
  );
}
