"use client";
import type { FormEventHandler, ReactNode } from "react";
import type { FieldValues, UseFormReturn } from "react-hook-form";
import { Button, Dialog, DialogActions, Form, Notice } from "./ui";
import { formMessage } from "./ui/use-zod-form";

/**
 * A dialog around one form: its title and description, the server's refusal that names no field
 * above the fields, and Cancel beside the submit button.
 */
export function FormDialog<T extends FieldValues, O extends FieldValues>(props: {
  title: string;
  description: ReactNode;
  form: UseFormReturn<T, unknown, O>;
  onSubmit: FormEventHandler<HTMLFormElement>;
  submitLabel: string;
  cancelLabel?: string;
  variant?: "primary" | "danger";
  pending: boolean;
  onClose: () => void;
  /** Shown above the form's message (e.g. what else a reopen resets). */
  intro?: ReactNode;
  children: ReactNode;
}) {
  const message = formMessage(props.form);
  return (
    <Dialog open onClose={props.onClose} title={props.title} description={props.description}>
      <Form onSubmit={props.onSubmit} className="space-y-4">
        {props.intro}
        {message ? <Notice tone="error">{message}</Notice> : null}
        {props.children}
        <DialogActions>
          <Button variant="secondary" onClick={props.onClose}>
            {props.cancelLabel ?? "Cancel"}
          </Button>
          <Button type="submit" variant={props.variant ?? "primary"} pending={props.pending}>
            {props.submitLabel}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
