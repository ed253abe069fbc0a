"use client";
import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { Button, Field, Form, Input, Notice } from "@/app/_components/ui";

type Errors = { email?: string; password?: string; form?: string };

export function LoginForm({ initialEmail, passwordSet, next }: { initialEmail: string; passwordSet: boolean; next: string | null }) {
  const [email, setEmail] = useState(initialEmail);
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<Errors>({});
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found: Errors = {};
    if (!email.trim()) found.email = "Enter your email address.";
    if (!password) found.password = "Enter your password.";
    setErrors(found);
    if (found.email || found.password) return;
    setPending(true);
    const result = await signIn("credentials", { email: email.trim(), password, redirect: false });
    if (!result || result.error) {
      setPending(false);
      setErrors({ form: signInMessage(result?.error) });
      return;
    }
    // A full load, not a client navigation: the home page picks the right area for the role,
    // and no cached data of an earlier session survives.
    window.location.assign(next ?? "/");
  }

  return (
    <Form errorKey={errors} onSubmit={onSubmit} className="space-y-5 rounded-lg border border-slate-200 bg-white p-6 shadow-xs" aria-label="Sign in">
      {passwordSet && !errors.form ? <Notice tone="success">Your password is set. Sign in with it now.</Notice> : null}
      {errors.form ? <Notice tone="error">{errors.form}</Notice> : null}
      <Field label="Email" error={errors.email}>
        {(p) => (
          <Input {...p} name="email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} autoFocus={!initialEmail} />
        )}
      </Field>
      <Field label="Password" error={errors.password}>
        {(p) => (
          <Input
            {...p}
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            autoFocus={Boolean(initialEmail)}
          />
        )}
      </Field>
      <Button type="submit" pending={pending} className="w-full">
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
