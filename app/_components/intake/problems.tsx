"use client";
import { useState, type ReactNode } from "react";
import { Badge, cn, Pagination, ResponsiveTable, type ResponsiveColumn } from "@/app/_components/ui";
import type { TokenFileCheck } from "@/app/_lib/types";
import { PROBLEM_KINDS, severityOf, type ProblemKind } from "@/core/intake/problems";

type Problem = TokenFileCheck["problems"][number];

/** Each problem kind in words (the kinds are the intake's stable keys). */
export const PROBLEM_KIND_LABELS: Record<ProblemKind, string> = {
  file_too_large: "File too large",
  file_empty: "Empty file",
  unsupported_file_type: "Not a CSV or XLSX file",
  not_utf8: "Not UTF-8 text",
  unreadable_file: "Unreadable file",
  too_many_rows: "Too many companies",
  header_only: "No companies",
  missing_header_row: "No header row",
  wrong_platform: "Another platform's columns",
  missing_column: "Missing column",
  unknown_column: "Unknown column",
  duplicate_column: "Column twice",
  required_value_missing: "Value missing",
  malformed_value: "Malformed value",
  invalid_records: "Invalid records hint",
  invalid_count: "Invalid old app count",
  extra_values: "Values beyond the columns",
  lossy_number: "Number changed by the spreadsheet",
  value_too_long: "Value too long",
  access_token_expired: "Access token expired",
  duplicate_credential: "Same token twice",
  duplicate_identity: "Same company twice",
  company_not_in_engagement: "Not a company of this migration",
  company_ambiguous: "Name of several companies",
  company_not_waiting: "Not waiting for fresh tokens",
  duplicate_company: "Company named twice",
  company_name_altered: "Name the service changes",
  company_name_replaced: "Name the service cannot keep",
  duplicate_company_name: "Same name twice",
  expires_at_missing: "No expiry given",
  extension_mismatch: "Wrong file extension",
  shared_user_grant: "One user's token for several companies",
};

const isKind = (kind: string): kind is ProblemKind => (PROBLEM_KINDS as readonly string[]).includes(kind);
const severity = (kind: string) => (isKind(kind) ? severityOf(kind) : "error");

const kindLabel = (kind: string) => (isKind(kind) ? PROBLEM_KIND_LABELS[kind] : kind.replaceAll("_", " "));

/** Where a problem is: "Line 7", "Row 7 (C7)", or the whole file. */
function where(p: Problem): string {
  if (p.line === undefined) return "Whole file";
  return p.cell ? `Row ${p.line} (${p.cell})` : `Line ${p.line}`;
}

/** Kinds and their counts, errors first, then by name. */
function byKind(counts: Record<string, number>): [string, number][] {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => (severity(a) === severity(b) ? a.localeCompare(b) : severity(a) === "error" ? -1 : 1));
}

/** Problems listed on one page of the table. */
const PROBLEMS_PAGE = 10;

const PROBLEM_COLUMNS: ResponsiveColumn<Problem>[] = [
  { label: "Where", title: true, className: "whitespace-nowrap font-medium", cell: (p) => where(p) },
  {
    label: "Kind",
    className: "whitespace-nowrap",
    cell: (p) => (
      <Badge tone={p.severity === "error" ? "danger" : "warning"}>
        <span className="sr-only">{p.severity === "error" ? "Error: " : "Warning: "}</span>
        {kindLabel(p.kind)}
      </Badge>
    ),
  },
  { label: "Column", className: "font-mono text-xs", cell: (p) => p.column ?? "—" },
  {
    label: "What to do",
    wide: true,
    className: "min-w-64",
    cell: (p) => (
      <>
        {p.message}
        {p.value !== undefined ? (
          <>
            {" "}
            <span className="break-all text-slate-500">(value: {p.value || "empty"})</span>
          </>
        ) : null}
      </>
    ),
  },
];

/**
 * Every problem found, by line or cell (where, which column, what is wrong and what to do), ten
 * to a page, with the kinds and their counts above to show one kind at a time. `counts` are the
 * file's exact counts per kind (they cover problems beyond those listed); without them the
 * listed problems are counted.
 */
export function ProblemTable({ problems, caption, counts, more = 0 }: { problems: readonly Problem[]; caption: string; counts?: Record<string, number>; more?: number }) {
  // What is shown belongs to one list of problems: a file checked again starts from every kind, page 1.
  const [view, setView] = useState<{ problems: readonly Problem[]; kind: string | null; page: number }>({ problems, kind: null, page: 1 });
  const { kind, page } = view.problems === problems ? view : { kind: null, page: 1 };
  if (!problems.length) return null;
  const kinds = byKind(counts ?? Object.fromEntries(PROBLEM_KINDS.map((k) => [k, problems.filter((p) => p.kind === k).length])));
  const total = kinds.reduce((n, [, count]) => n + count, 0);
  const listed = kind ? problems.filter((p) => p.kind === kind) : problems;
  const shown = listed.slice((page - 1) * PROBLEMS_PAGE, page * PROBLEMS_PAGE);
  const show = (next: { kind?: string | null; page?: number }) => setView({ problems, kind: next.kind === undefined ? kind : next.kind, page: next.page ?? 1 });
  return (
    <div className="space-y-3">
      <div role="group" aria-label={`${caption}: show one kind`} className="flex flex-wrap gap-2">
        <Chip pressed={kind === null} tone="neutral" onClick={() => show({ kind: null })}>
          Every kind: {total.toLocaleString("en-GB")}
        </Chip>
        {kinds.map(([k, n]) => (
          <Chip key={k} pressed={kind === k} tone={severity(k) === "error" ? "danger" : "warning"} onClick={() => show({ kind: k })}>
            {kindLabel(k)}: {n.toLocaleString("en-GB")}
          </Chip>
        ))}
      </div>
      <ResponsiveTable caption={caption} captionVisible={false} columns={PROBLEM_COLUMNS} rows={shown} rowKey={(p) => `${p.kind}-${p.line ?? "file"}-${p.cell ?? p.column ?? ""}-${problems.indexOf(p)}`} />
      {listed.length > PROBLEMS_PAGE ? (
        <Pagination page={page} pageSize={PROBLEMS_PAGE} total={listed.length} onPageChange={(next) => show({ page: next })} noun={kind ? { one: `${kindLabel(kind).toLowerCase()} problem`, other: `${kindLabel(kind).toLowerCase()} problems` } : { one: "problem", other: "problems" }} />
      ) : null}
      {more > 0 ? <p className="text-sm text-slate-600">The first {problems.length.toLocaleString("en-GB")} are listed; {more.toLocaleString("en-GB")} more are counted in their kinds above.</p> : null}
    </div>
  );
}

const CHIP_TONES = {
  neutral: { off: "bg-white text-slate-800 ring-slate-300", on: "bg-slate-800 text-white ring-slate-800" },
  danger: { off: "bg-red-50 text-red-800 ring-red-300", on: "bg-red-700 text-white ring-red-700" },
  warning: { off: "bg-amber-50 text-amber-900 ring-amber-300", on: "bg-amber-700 text-white ring-amber-700" },
} as const;

/** A kind to show on its own, with its count; pressed while it is the one shown. */
function Chip({ pressed, tone, onClick, children }: { pressed: boolean; tone: keyof typeof CHIP_TONES; onClick: () => void; children: ReactNode }) {
  return (
    <button
      type="button"
      aria-pressed={pressed}
      onClick={onClick}
      className={cn(
        "rounded-full px-2.5 py-1 text-xs font-medium ring-1 ring-inset focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600",
        pressed ? CHIP_TONES[tone].on : CHIP_TONES[tone].off,
      )}
    >
      {children}
    </button>
  );
}

/** The first rows of a file as the service will read them, every secret masked; where each row was stays in view. */
export function PreviewTable({ preview, caption }: { preview: TokenFileCheck["preview"]; caption: string }) {
  if (!preview.rows.length) return null;
  type Row = TokenFileCheck["preview"]["rows"][number];
  const columns: ResponsiveColumn<Row>[] = [
    { label: "Where", sticky: "start", title: true, className: "whitespace-nowrap text-slate-600", cell: (r) => r.sourceRef },
    ...preview.columns.map(
      (c): ResponsiveColumn<Row> =>
        c === "companyName"
          ? {
              label: c,
              labelClassName: "normal-case",
              className: "max-w-56 font-mono text-xs",
              cell: (r) => (
                <>
                  <span className="block truncate" title={r.values[c]}>
                    {r.values[c] ?? ""}
                  </span>
                  {r.becomes !== undefined ? (
                    <span className="block truncate font-sans text-amber-800" title={r.becomes}>
                      becomes {r.becomes}
                    </span>
                  ) : null}
                </>
              ),
            }
          : {
              label: c,
              labelClassName: "normal-case",
              className: "max-w-56 font-mono text-xs",
              cell: (r) => (
                <span className="block truncate" title={r.values[c]}>
                  {r.values[c] ?? ""}
                </span>
              ),
            },
    ),
  ];
  return <ResponsiveTable caption={caption} columns={columns} rows={preview.rows} rowKey={(r) => r.sourceRef} />;
}
