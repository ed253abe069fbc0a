"use client";
import type { ReactNode } from "react";
import { z } from "zod";
import { FormDialog } from "./form-dialog";
import { Field, Textarea } from "./ui";
import { fieldMessage, showServerError, useZodForm } from "./ui/use-zod-form";

const ZText = z.object({ text: z.string().trim().max(2000, "Keep it under 2,000 characters.") });

/**
 * A dialog that asks for one piece of text (a note, a reason) and submits it. Whether the text is
 * required is the server's rule: its refusal lands on the field, named by `field`.
 */
export function TextDialog(props: {
  title: string;
  description: ReactNode;
  /** Shown above the field (e.g. what else a reopen resets). */
  children?: ReactNode;
  label: string;
  hint: ReactNode;
  required: boolean;
  /** The input name the server uses for this text in its field errors (note, reason…). */
  field: string;
  submitLabel: string;
  cancelLabel?: string;
  variant?: "primary" | "danger";
  pending: boolean;
  onClose: () => void;
  /** Sends the text (empty becomes undefined); throws the server's refusal. */
  submit: (text: string | undefined) => Promise<unknown>;
}) {
  const form = useZodForm(ZText, { defaultValues: { text: "" } });
  const onSubmit = form.handleSubmit(async ({ text }) => {
    try {
      await props.submit(text || undefined);
    } catch (e) {
      // The server names its own field (note, reason): on this form that is the one text field.
      showServerError(form, e, { [props.field]: "text" });
    }
  });
  return (
    <FormDialog
      title={props.title}
      description={props.description}
      form={form}
      onSubmit={onSubmit}
      submitLabel={props.submitLabel}
      cancelLabel={props.cancelLabel}
      variant={props.variant}
      pending={props.pending}
      onClose={props.onClose}
      intro={props.children}
    >
      <Field label={props.label} required={props.required} error={fieldMessage(form, "text")} hint={props.hint}>
        {(p) => <Textarea {...p} {...form.register("text")} />}
      </Field>
    </FormDialog>
  );
}
