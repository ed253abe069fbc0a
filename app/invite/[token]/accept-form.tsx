"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button, Field, Form, Input, Notice } from "@/app/_components/ui";
import { roleLabel } from "@/app/_lib/labels";
import { NO_FORM_ERROR, toFormError, withoutField, type FormError } from "@/app/_lib/trpc-error";
import type { Role } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";

export type AcceptInvitationFormProps = {
  token: string;
  email: string;
  name: string;
  organizationName: string | null;
  role: Role;
};

export function AcceptInvitationForm({ token, email, name: invitedName, organizationName, role }: AcceptInvitationFormProps) {
  const trpc = useTRPC();
  const router = useRouter();
  const [name, setName] = useState(invitedName);
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [error, setError] = useState<FormError>(NO_FORM_ERROR);
  const accept = useMutation(
    trpc.invitations.accept.mutationOptions({
      onSuccess: (result) => {
        router.push(`/login?invited=1&email=${encodeURIComponent(result.email)}`);
      },
      onError: (e) => setError(toFormError(e)),
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // Only the match is checked here; the password rules belong to the server.
    if (password && confirm !== password) {
      setError({ message: "", fields: { confirm: "The passwords don't match." } });
      return;
    }
    setError(NO_FORM_ERROR);
    accept.mutate({ token, name, password });
  }

  const formMessage = error.message && !Object.keys(error.fields).length ? error.message : "";

  return (
    <Form errorKey={error} onSubmit={onSubmit} aria-label="Set your password" className="space-y-5 rounded-lg border border-slate-200 bg-white p-6 shadow-xs">
      <p className="text-sm text-slate-700">
        You&apos;re invited as <strong>{role === "customer" ? "a customer user" : `${roleLabel(role).toLowerCase()} staff`}</strong>
        {organizationName ? (
          <>
            {" "}
            for <strong>{organizationName}</strong>
          </>
        ) : null}
        . Choose a password to finish setting up your account.
      </p>
      {formMessage ? <Notice tone="error">{formMessage}</Notice> : null}
      <Field label="Email" hint="This is the address you'll sign in with.">
        {(p) => <Input {...p} type="email" value={email} readOnly autoComplete="username" />}
      </Field>
      <Field label="Your name" error={error.fields.name}>
        {(p) => <Input {...p} name="name" autoComplete="name" value={name} onChange={(e) => {
                setName(e.target.value);
                setError((current) => withoutField(current, "name"));
              }} />}
      </Field>
      <Field label="Password" error={error.fields.password} hint="At least 10 characters.">
        {(p) => (
          <Input {...p} name="password" type="password" autoComplete="new-password" value={password} onChange={(e) => {
                setPassword(e.target.value);
                setError((current) => withoutField(current, "password"));
              }} />
        )}
      </Field>
      <Field label="Repeat the password" error={error.fields.confirm}>
        {(p) => (
          <Input {...p} name="confirm" type="password" autoComplete="new-password" value={confirm} onChange={(e) => {
                setConfirm(e.target.value);
                setError((current) => withoutField(current, "confirm"));
              }} />
        )}
      </Field>
      <Button type="submit" pending={accept.isPending} className="w-full">
        Set password
      </Button>
    </Form>
  );
}
