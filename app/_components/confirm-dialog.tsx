"use client";
import type { ReactNode } from "react";
import { toFormError } from "@/app/_lib/trpc-error";
import { Button, Dialog, DialogActions, Notice } from "./ui";

/**
 * A dialog that asks to confirm one consequential action (no input): what it does, the server's
 * refusal if it comes, and the two buttons. `confirm` runs the action and throws its refusal.
 */
export function ConfirmDialog(props: {
  title: string;
  description: ReactNode;
  children: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  pending: boolean;
  /** The last attempt's refusal, shown above the buttons. */
  error: unknown;
  onClose: () => void;
  confirm: () => Promise<void>;
}) {
  return (
    <Dialog open onClose={props.onClose} title={props.title} description={props.description}>
      <div className="space-y-3 text-sm text-slate-700">
        {props.children}
        {props.error ? <Notice tone="error">{toFormError(props.error).message}</Notice> : null}
      </div>
      <DialogActions>
        <Button variant="secondary" onClick={props.onClose}>
          {props.cancelLabel ?? "Cancel"}
        </Button>
        <Button
          data-autofocus
          pending={props.pending}
          onClick={() => {
            // The refusal is shown from `error`; nothing else to do with it here.
            props.confirm().catch(() => undefined);
          }}
        >
          {props.confirmLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
