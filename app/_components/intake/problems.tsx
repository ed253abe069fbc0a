import { Badge, Table, TBody, Td, Th, THead, Tr } from "@/app/_components/ui";
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
};

const isKind = (kind: string): kind is ProblemKind => (PROBLEM_KINDS as readonly string[]).includes(kind);
const severity = (kind: string) => (isKind(kind) ? severityOf(kind) : "error");

const kindLabel = (kind: string) => (isKind(kind) ? PROBLEM_KIND_LABELS[kind] : kind.replaceAll("_", " "));

/** Where a problem is: "Line 7", "Row 7 (C7)", or the whole file. */
function where(p: Problem): string {
  if (p.line === undefined) return "Whole file";
  return p.cell ? `Row ${p.line} (${p.cell})` : `Line ${p.line}`;
}

/** Problems counted per kind, errors first, as badges. */
export function ProblemCounts({ counts }: { counts: Record<string, number> }) {
  const entries = Object.entries(counts).sort(([a], [b]) => (severity(a) === severity(b) ? a.localeCompare(b) : severity(a) === "error" ? -1 : 1));
  if (!entries.length) return null;
  return (
    <ul className="flex flex-wrap gap-2" aria-label="Problems by kind">
      {entries.map(([kind, n]) => (
        <li key={kind}>
          <Badge tone={severity(kind) === "error" ? "danger" : "warning"}>
            {kindLabel(kind)}: {n.toLocaleString("en-GB")}
          </Badge>
        </li>
      ))}
    </ul>
  );
}

/** The problems by line or cell: where, which column, what is wrong and what to do. */
export function ProblemTable({ problems, caption, more = 0 }: { problems: readonly Problem[]; caption: string; more?: number }) {
  if (!problems.length) return null;
  return (
    <div className="space-y-2">
      <Table scrollable caption={caption} className="max-h-96 overflow-y-auto">
        <THead>
          <Tr>
            <Th>Where</Th>
            <Th>Kind</Th>
            <Th>Column</Th>
            <Th>What to do</Th>
          </Tr>
        </THead>
        <TBody>
          {problems.map((p, i) => (
            <Tr key={`${p.kind}-${p.line ?? "file"}-${p.cell ?? p.column ?? ""}-${i}`}>
              <Td className="whitespace-nowrap font-medium">{where(p)}</Td>
              <Td className="whitespace-nowrap">
                <Badge tone={p.severity === "error" ? "danger" : "warning"}>
                  <span className="sr-only">{p.severity === "error" ? "Error: " : "Warning: "}</span>
                  {kindLabel(p.kind)}
                </Badge>
              </Td>
              <Td className="font-mono text-xs">{p.column ?? "—"}</Td>
              <Td>
                {p.message}
                {p.value !== undefined ? <span className="ml-1 text-slate-500">(value: {p.value || "empty"})</span> : null}
              </Td>
            </Tr>
          ))}
        </TBody>
      </Table>
      {more > 0 ? <p className="text-sm text-slate-600">… and {more.toLocaleString("en-GB")} more of the kinds counted above.</p> : null}
    </div>
  );
}

/** The first rows of a file as the service will read them, every secret masked. */
export function PreviewTable({ preview, caption }: { preview: TokenFileCheck["preview"]; caption: string }) {
  if (!preview.rows.length) return null;
  return (
    <Table scrollable caption={caption} captionVisible>
      <THead>
        <Tr>
          <Th>Where</Th>
          {preview.columns.map((c) => (
            <Th key={c} className="normal-case">
              {c}
            </Th>
          ))}
        </Tr>
      </THead>
      <TBody>
        {preview.rows.map((r) => (
          <Tr key={r.sourceRef}>
            <Td className="whitespace-nowrap text-slate-600">{r.sourceRef}</Td>
            {preview.columns.map((c) =>
              c === "companyName" && r.becomes !== undefined ? (
                <Td key={c} className="max-w-56 font-mono text-xs">
                  <span className="block truncate" title={r.values[c]}>
                    {r.values[c] ?? ""}
                  </span>
                  <span className="block truncate font-sans text-amber-800" title={r.becomes}>
                    becomes {r.becomes}
                  </span>
                </Td>
              ) : (
                <Td key={c} className="max-w-56 truncate font-mono text-xs" title={r.values[c]}>
                  {r.values[c] ?? ""}
                </Td>
              ),
            )}
          </Tr>
        ))}
      </TBody>
    </Table>
  );
}
