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
  updatedAt: string;
  processes: Record<string, { pid: number | null; running: boolean; startedAt: string; restarts: number }>;
};

export function formatDelay(ms: number): string;
export function howItEnded(code: number | null, signal: string | null): string;
export function createSupervisor(options?: SupervisorOptions): Supervisor;
export function stopOnSignals(supervisor: Supervisor, handlers?: { onSignal?: (signal: string) => void; onStopped?: (signal: string) => void }): void;
