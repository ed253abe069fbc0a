import { Notice } from "@/app/_components/ui";
import { companiesText, countOf, plural, warningsText } from "@/core/words";
import type { TokenFileCheck } from "@/app/_lib/types";
import { PreviewTable, ProblemTable } from "./problems";

/** What checking a token file found: a summary, counts per kind, problems by line, the masked preview. */
export function CheckResult({ check }: { check: TokenFileCheck }) {
  const companies = companiesText(check.rowCount);
  return (
    <div className="space-y-4" data-testid="check-result">
      {check.ok ? (
        <Notice tone={check.warningCount ? "warning" : "success"} title={`${check.fileName}: ${companies}, ready to submit`}>
          {check.warningCount
            ? `${warningsText(check.warningCount)} below: check them, then submit. Nothing is stored until you submit.`
            : "No problems found. Nothing is stored until you submit."}
        </Notice>
      ) : (
        <Notice tone="error" title={`${check.fileName} cannot be submitted yet`}>
          {countOf(check.errorCount, "problem blocks", "problems block")} the file
          {check.warningCount ? ` (and ${warningsText(check.warningCount)})` : ""}. Fix {plural(check.errorCount, { one: "it", other: "them" })} in
          your spreadsheet and choose the file again. Nothing from this file was stored.
        </Notice>
      )}
      <ProblemTable problems={check.problems} counts={check.countsByKind} caption="Problems in the file, by line" more={check.moreProblems} />
      <PreviewTable preview={check.preview} caption="Preview of the first rows (secrets masked)" />
    </div>
  );
}
