import type { IncomingMessage } from "node:http";

export const SOCKET_ADDRESS_HEADER: string;
export function markServedByFerry(): void;
export function tagSocketAddress(req: IncomingMessage): void;
