import type { ReactNode } from "react";
import { toFormError } from "@/app/_lib/trpc-error";
import { EmptyState } from "./ui/empty-state";
import { Notice } from "./ui/notice";
import { ProgressBar } from "./ui/progress-bar";

/**
 * A list query's four faces in one place: its error, a progress bar while loading, an empty
 * state, or the rows.
 */
export function QueryView<T>({
  query,
  loading,
  empty,
  children,
}: {
  /** A TanStack query's result (only its error and data are read). */
  query: { error: unknown; data: readonly T[] | undefined };
  /** What is loading, for the progress bar's label. */
  loading: string;
  empty: { title: string; text: ReactNode };
  children: (rows: readonly T[]) => ReactNode;
}) {
  if (query.error) return <Notice tone="error">{toFormError(query.error).message}</Notice>;
  if (!query.data) return <ProgressBar label={loading} />;
  if (!query.data.length) return <EmptyState title={empty.title}>{empty.text}</EmptyState>;
  return <>{children(query.data)}</>;
}
