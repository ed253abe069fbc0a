export type Outcome = { passed: number; failed: number; failures: string[] };
export function firstLine(message: string | null | undefined): string;
export function vitestOutcome(report: unknown, root: string, exitCode: number | null): Outcome;
export function playwrightOutcome(report: unknown): Outcome;
export function slowestVitestFiles(report: unknown, root: string, n?: number): { file: string; seconds: number; tests: number }[];
export function playwrightDurations(report: unknown): { test: string; seconds: number }[];
