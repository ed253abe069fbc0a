export type Outcome = { passed: number; failed: number; failures: string[] };
export function firstLine(message: string | null | undefined): string;
export function vitestOutcome(report: unknown, root: string, exitCode: number | null): Outcome;
export function playwrightOutcome(report: unknown): Outcome;
