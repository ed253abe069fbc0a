export function workerHeapMb(env?: Record<string, string | undefined>): number;
export function workerNodeArgs(entry: string, env?: Record<string, string | undefined>): string[];
