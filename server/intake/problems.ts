/**
 * The collector of a token file's problems, which keeps counts exact while capping the list (the
 * kinds and their severities: core/intake/problems.ts).
 */
import { severityOf, type IntakeProblem, type ProblemKind } from "@/core/intake/problems";
import { MAX_PROBLEMS_PER_KIND } from "./limits";

/** Problems as they are found: exact counts per kind, at most MAX_PROBLEMS_PER_KIND kept per kind. */
export class ProblemList {
  readonly items: IntakeProblem[] = [];
  readonly countsByKind: Partial<Record<ProblemKind, number>> = {};
  errorCount = 0;
  warningCount = 0;

  /** Records one problem (its severity follows from its kind). */
  add(problem: Omit<IntakeProblem, "severity">): void {
    const severity = severityOf(problem.kind);
    const count = (this.countsByKind[problem.kind] ?? 0) + 1;
    this.countsByKind[problem.kind] = count;
    if (severity === "error") this.errorCount += 1;
    else this.warningCount += 1;
    if (count <= MAX_PROBLEMS_PER_KIND) this.items.push({ ...problem, severity });
  }
}

/** `value` cut to `max` characters, the cut marked with an ellipsis: what a problem or preview may quote of a value. */
export function cut(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

/** One problem as a line of text (for mail and logs): location, column and message. */
export function formatProblem(problem: IntakeProblem): string {
  const where = [
    problem.line === undefined ? null : problem.cell ? `Row ${problem.line} (cell ${problem.cell})` : `Line ${problem.line}`,
    problem.column ? `column ${problem.column}` : null,
  ].filter(Boolean);
  return where.length ? `${where.join(", ")}: ${problem.message}` : problem.message;
}
