"use client";
import { ErrorMessage } from "./_components/error-message";

export default function RootError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <main id="main" className="px-4 py-8">
      <ErrorMessage error={error} retry={retry} />
    </main>
  );
}
