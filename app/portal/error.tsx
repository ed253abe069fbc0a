"use client";
import { ErrorMessage } from "@/app/_components/error-message";

/** Inside the portal's chrome, so navigation stays usable after a failure. */
export default function PortalError({ error, retry }: { error: unknown; retry: () => void }) {
  return <ErrorMessage error={error} retry={retry} />;
}
