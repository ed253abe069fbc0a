"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { z } from "zod";
import { Button, Field, Form, Input, Notice } from "@/app/_components/ui";
import { fieldMessage, formMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import { roleLabel } from "@/app/_lib/labels";
import type { Role } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { ZAcceptInvitationRequest } from "@/server/api/routers/accounts.types";

// Only the match is checked here beyond the request's own schema; the password rules belong to the server.
const ZAcceptForm = ZAcceptInvitationRequest.omit({ token: true })
  .extend({ confirm: z.string() })
  .refine((v) => !v.password || v.confirm === v.password, { path: ["confirm"], message: "The passwords don't match." });

export type AcceptInvitationFormProps = {
  token: string;
  email: string;
  name: string;
  organizationName: string | null;
  role: Role;
};

export function AcceptInvitationForm({ token, email, name, organizationName, role }: AcceptInvitationFormProps) {
  const trpc = useTRPC();
  const router = useRouter();
  const form = useZodForm(ZAcceptForm, { defaultValues: { name, password: "", confirm: "" } });
  const accept = useMutation(trpc.invitations.accept.mutationOptions());
  const onSubmit = form.handleSubmit(async (input) => {
    let email: string;
    try {
      email = (await accept.mutateAsync({ token, name: input.name, password: input.password })).email;
    } catch (e) {
      showServerError(form, e);
      return;
    }
    // The invitee has just proved who they are with the link and chosen the password: they are
    // signed in with it at once. Should that not work now (the sign-in limits), the account is
    // there all the same: the sign-in page says so, with their email filled in.
    const signedIn = await signIn("credentials", { email, password: input.password, redirect: false }).catch(() => null);
    if (signedIn?.ok && !signedIn.error) {
      // A full load, as after any sign-in: the home page picks the area for the role.
      window.location.assign(new URL("/", window.location.origin).href);
      return;
    }
    router.push(`/login?invited=1&email=${encodeURIComponent(email)}`);
  });
  // Pending until the page is replaced, so the button cannot be pressed twice.
  const pending = accept.isPending || (form.formState.isSubmitSuccessful && accept.isSuccess);

  return (
    <Form onSubmit={onSubmit} aria-label="Set your password" className="space-y-5 rounded-lg border border-slate-200 bg-white p-6 shadow-xs">
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
      {formMessage(form) ? <Notice tone="error">{formMessage(form)}</Notice> : null}
      <Field label="Email" hint="This is the address you'll sign in with.">
        {(p) => <Input {...p} type="email" value={email} readOnly autoComplete="username" />}
      </Field>
      <Field label="Your name" error={fieldMessage(form, "name")}>
        {(p) => <Input {...p} {...form.register("name")} autoComplete="name" />}
      </Field>
      <Field label="Password" error={fieldMessage(form, "password")} hint="At least 10 characters.">
        {(p) => <Input {...p} {...form.register("password")} type="password" autoComplete="new-password" />}
      </Field>
      <Field label="Repeat the password" error={fieldMessage(form, "confirm")}>
        {(p) => <Input {...p} {...form.register("confirm")} type="password" autoComplete="new-password" />}
      </Field>
      <Button type="submit" pending={pending} className="w-full">
        Set password
      </Button>
    </Form>
  );
}
