import type { ChildProcess } from "node:child_process";

export type Ended = { name: string; label: string; pid: number | null; code: number | null; signal: NodeJS.Signals | null; how: string };

export type SupervisorOptions = {
  log?: (line: string) => void;
  initialDelayMs?: number;
  maxDelayMs?: number;
  stableAfterMs?: number;
  stopTimeoutMs?: number;
  stateFile?: string;
  onExitWhileStarting?: (ended: Ended) => void;
};

export type ServiceSpec = {
  name: string;
  label: string;
  command: string;
  args?: string[];
  env?: Record<string, string | undefined>;
  quiet?: boolean;
  detached?: boolean;
};

export type Supervised = { readonly child: ChildProcess; readonly pid: number | null; readonly restarts: number };

export type Supervisor = {
  add(spec: ServiceSpec): Supervised;
  startupDone(): void;
  readonly stopping: boolean;
  stop(): Promise<void>;
};

export type StateFile = {
  supervisor: number;
  /** The supervising script (its argv[1]), to tell it from another program given the same pid later. */
  script: string | null;
  updatedAt: string;
  processes: Record<string, { pid: number | null; running: boolean; startedAt: string; restarts: number }>;
};

export function formatDelay(ms: number): string;
export function howItEnded(code: number | null, signal: string | null): string;
export function createSupervisor(options?: SupervisorOptions): Supervisor;
export function stopOnSignals(supervisor: Supervisor, handlers?: { onSignal?: (signal: string) => void; onStopped?: (signal: string) => void }): void;
export function isRunning(pid: number): boolean;
export function claimStateFile(stateFile: string, options?: { waitMs?: number; pollMs?: number }): Promise<{ ok: true } | { ok: false; pid: number | null; message: string }>;
