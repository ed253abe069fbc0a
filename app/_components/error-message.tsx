"use client";
import { useEffect } from "react";
import { Button } from "./ui/button";

/**
 * What an unexpected failure looks like: a plain apology, the reference to quote (Next's digest
 * of a server error; the message itself is never shown, it may carry internals), and a retry.
 */
export function ErrorMessage({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = error && typeof error === "object" && "digest" in error ? String((error as { digest?: unknown }).digest ?? "") : "";
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <section aria-labelledby="error-title" className="mx-auto max-w-lg py-16 text-center">
      <p className="text-sm font-semibold text-red-700">Something went wrong</p>
      <h1 id="error-title" className="mt-2 text-2xl font-semibold text-slate-900">
        This page could not be shown
      </h1>
      <p className="mt-3 text-slate-600">
        Please try again. If it keeps happening, tell Ferry support{digest ? <> and quote reference <code className="font-mono">{digest}</code></> : null}.
      </p>
      <Button className="mt-6" onClick={() => retry()}>
        Try again
      </Button>
    </section>
  );
}
