"use client";
import { signIn } from "next-auth/react";
import { z } from "zod";
import { Button, Field, Form, Input, Notice } from "@/app/_components/ui";
import { fieldMessage, formMessage, useZodForm } from "@/app/_components/ui/use-zod-form";

const ZSignIn = z.object({
  email: z.string().trim().min(1, "Enter your email address."),
  password: z.string().min(1, "Enter your password."),
});

export function LoginForm({ initialEmail, passwordSet, next }: { initialEmail: string; passwordSet: boolean; next: string | null }) {
  const form = useZodForm(ZSignIn, { defaultValues: { email: initialEmail, password: "" } });
  const onSubmit = form.handleSubmit(async ({ email, password }) => {
    const result = await signIn("credentials", { email, password, redirect: false });
    if (!result || result.error) {
      form.setError("root.server", { type: "server", message: signInMessage(result?.error) });
      return;
    }
    // A full load, not a client navigation: the home page picks the right area for the role,
    // and no cached data of an earlier session survives.
    window.location.assign(next ?? "/");
  });
  const refused = formMessage(form);
  // Pending until the page is replaced, so the button cannot be pressed twice.
  const pending = form.formState.isSubmitting || form.formState.isSubmitSuccessful;

  return (
    <Form onSubmit={onSubmit} className="space-y-5 rounded-lg border border-slate-200 bg-white p-6 shadow-xs" aria-label="Sign in">
      {passwordSet && !refused ? <Notice tone="success">Your password is set. Sign in with it now.</Notice> : null}
      {refused ? <Notice tone="error">{refused}</Notice> : null}
      <Field label="Email" error={fieldMessage(form, "email")}>
        {(p) => <Input {...p} {...form.register("email")} type="email" autoComplete="email" autoFocus={!initialEmail} />}
      </Field>
      <Field label="Password" error={fieldMessage(form, "password")}>
        {(p) => <Input {...p} {...form.register("password")} type="password" autoComplete="current-password" autoFocus={Boolean(initialEmail)} />}
      </Field>
      <Button type="submit" pending={pending && !refused} className="w-full">
        Sign in
      </Button>
    </Form>
  );
}

/** next-auth passes the server's message through; its own codes get words here. */
function signInMessage(error: string | null | undefined): string {
  if (!error || error === "CredentialsSignin") return "Wrong email or password.";
  if (error === "Configuration" || error === "Callback") return "Signing in is not working right now. Please try again shortly.";
  return error;
}
