"use client";
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ItemStateBadge } from "@/app/_components/handover/item-state-badge";
import { ProblemTable } from "@/app/_components/intake/problems";
import { FailureDetails } from "@/app/_components/migration/failure-details";
import { Badge, CopyableId, Notice, ResponsiveTable, type BadgeTone, type ResponsiveColumn } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";
import type { SupplementaryCheck, SupplementaryFileView, SupplementaryView, WaitingCompanyView } from "@/app/_lib/types";
import { companiesText as companies } from "@/core/words";
import { FINAL_ITEM_STATES, type SupplementaryStatus } from "@/core/migration/states";

/**
 * The supplementary file's parts both sides show: the companies waiting for fresh tokens and why
 * each failed, a file with its companies and masked values, and the companies a checked file names.
 */

/** How often the file's companies are read again while their retries run. */
export const RETRY_POLL_MS = 2_000;

/** An accepted file whose companies are still being retried (the screens follow them). */
export function retrying(view: SupplementaryView | undefined): boolean {
  return view?.current?.status === "accepted" && view.current.rows.some((r) => !(FINAL_ITEM_STATES as readonly string[]).includes(r.company.state));
}

/**
 * Step 6's section on fresh tokens, read for both sides (followed while a file's retries run), with
 * each side's content; nothing shows while no company needs fresh tokens and no file was sent.
 */
export function FreshTokensSection({ engagementId, children }: { engagementId: string; children: (view: SupplementaryView) => ReactNode }) {
  const trpc = useTRPC();
  const view = useQuery(trpc.supplementary.get.queryOptions({ engagementId }, { refetchInterval: (q) => (retrying(q.state.data) ? RETRY_POLL_MS : false) }));
  const v = view.data;
  if (!v) return view.error ? <Notice tone="error">{toFormError(view.error).message}</Notice> : null;
  if (!v.waiting.total && !v.current) return null;
  return (
    <section id="supplementary" aria-labelledby="fresh-tokens-title" className="scroll-mt-24 space-y-4">
      <h4 id="fresh-tokens-title" className="text-sm font-semibold text-slate-900">
        Fresh tokens for companies that failed
      </h4>
      {children(v)}
    </section>
  );
}

export const SUPPLEMENTARY_STATUS: Record<SupplementaryStatus, { label: string; tone: BadgeTone }> = {
  submitted: { label: "Awaiting review", tone: "info" },
  accepted: { label: "Accepted", tone: "success" },
  returned: { label: "Sent back", tone: "warning" },
  replaced: { label: "Replaced", tone: "muted" },
  expired: { label: "Deleted unreviewed", tone: "muted" },
};

/** The companies that failed on their tokens and may get fresh ones: who they are, and why they failed. */
export function WaitingCompanies({ waiting, caption }: { waiting: SupplementaryView["waiting"]; caption: string }) {
  if (!waiting.total) return null;
  const columns: ResponsiveColumn<WaitingCompanyView>[] = [
    {
      label: "Company",
      className: "min-w-36",
      cell: (c) => (
        <>
          <span className="font-medium break-words text-slate-900">{c.name}</span>
          <span className="block text-xs text-slate-500">{c.sourceRef} of the token file</span>
        </>
      ),
    },
    { label: "External ref", className: "min-w-32 text-xs", cell: (c) => <CopyableId value={c.externalRef} label={`external ref of ${c.name}`} /> },
    { label: "State", cell: (c) => <ItemStateBadge state={c.state} /> },
    {
      label: "Why it failed",
      wide: true,
      className: "min-w-56 text-xs",
      cell: (c) => (
        <>
          {c.reason && c.reason !== c.failure?.error ? <p className="mb-1 break-words text-slate-800">{c.reason}</p> : null}
          {c.failure ? <FailureDetails failure={c.failure} subject={`${c.name}'s failure`} /> : c.reason ? null : <span className="text-slate-400">—</span>}
        </>
      ),
    },
  ];
  return (
    <div className="space-y-2">
      <ResponsiveTable caption={caption} columns={columns} rows={waiting.companies} rowKey={(c) => c.id} />
      {waiting.total > waiting.companies.length ? (
        <p className="text-sm text-slate-600">
          The first {waiting.companies.length.toLocaleString("en-GB")} of {companies(waiting.total)} are listed; the bulk run&apos;s table filters the rest by state.
        </p>
      ) : null}
    </div>
  );
}

/** Who sent a file when, who decided it, and the note when it was sent back. */
export function FileFacts({ file }: { file: SupplementaryFileView }) {
  return (
    <dl className="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
      <dt className="font-medium text-slate-700">Sent</dt>
      <dd>
        by {file.submittedBy?.name ?? "—"} on {formatDateTime(file.submittedAt)}
      </dd>
      <dt className="font-medium text-slate-700">Companies</dt>
      <dd>{file.rowCount.toLocaleString("en-GB")}</dd>
      <dt className="font-medium text-slate-700">Warnings</dt>
      <dd>{file.warnings.length.toLocaleString("en-GB")}</dd>
      {file.decidedAt ? (
        <>
          <dt className="font-medium text-slate-700">{file.status === "returned" ? "Sent back" : file.status === "expired" ? "Deleted" : "Accepted"}</dt>
          <dd>
            by {file.decidedBy?.name ?? "—"} on {formatDateTime(file.decidedAt)}
            {file.note ? `: “${file.note}”` : ""}
          </dd>
        </>
      ) : null}
    </dl>
  );
}

type FileRow = SupplementaryFileView["rows"][number];

const FILE_COLUMNS: ResponsiveColumn<FileRow>[] = [
  { label: "Where", className: "whitespace-nowrap text-slate-600", cell: (r) => r.sourceRef },
  { label: "Company", className: "min-w-36 font-medium break-words text-slate-900", cell: (r) => r.company.name },
  { label: "External ref", className: "min-w-32 text-xs", cell: (r) => <CopyableId value={r.company.externalRef} label={`external ref of ${r.company.name}`} /> },
  { label: "State now", cell: (r) => <ItemStateBadge state={r.company.state} /> },
  {
    label: "Tokens",
    className: "text-xs whitespace-nowrap",
    cell: (r) => (r.credentialsPurgedAt ? <Badge tone="muted">Deleted {formatDateTime(r.credentialsPurgedAt)}</Badge> : <Badge tone="neutral">Held, encrypted</Badge>),
  },
  { label: "Fresh credentials (masked)", className: "text-xs", cell: (r) => <MaskedCredentials mask={r.credentialsMask} /> },
];

/** A file's companies in file order: where the row was, the company now, whether its tokens are still held, and its masked values. */
export function FileRows({ file }: { file: SupplementaryFileView }) {
  return (
    <div className="space-y-2">
      <ProblemTable problems={file.warnings} caption="Warnings in the file, by line" />
      <ResponsiveTable caption={`Companies in ${file.fileName}`} columns={FILE_COLUMNS} rows={file.rows} rowKey={(r) => r.id} />
      {file.rowCount > file.rows.length ? (
        <p className="text-sm text-slate-600">
          The first {file.rows.length.toLocaleString("en-GB")} of {companies(file.rowCount)} are listed.
        </p>
      ) : null}
    </div>
  );
}

/** A credential map as screens show it: one field a line, secrets masked (the server masked them). */
function MaskedCredentials({ mask }: { mask: Record<string, string> }) {
  return (
    <dl className="grid grid-cols-[max-content_1fr] gap-x-2 font-mono">
      {Object.entries(mask).map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="text-slate-500">{k}</dt>
          <dd className="whitespace-nowrap">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

type Match = SupplementaryCheck["matches"][number];

const MATCH_COLUMNS: ResponsiveColumn<Match>[] = [
  { label: "Where", className: "whitespace-nowrap text-slate-600", cell: (m) => m.sourceRef },
  { label: "Company", className: "font-medium text-slate-900", cell: (m) => m.name },
  { label: "External ref", className: "min-w-32 text-xs", cell: (m) => <CopyableId value={m.externalRef} label={`external ref of ${m.name}`} /> },
  { label: "Found by", cell: (m) => (m.matchedBy === "externalRef" ? "External ref" : "Name") },
  { label: "State", cell: (m) => <ItemStateBadge state={m.state} /> },
];

/** The companies a checked file names, and how each row found its company. */
export function MatchedCompanies({ check }: { check: SupplementaryCheck }) {
  if (!check.matches.length) return null;
  return <ResponsiveTable caption="Companies this file gives fresh tokens to" columns={MATCH_COLUMNS} rows={check.matches} rowKey={(m) => m.id} />;
}
