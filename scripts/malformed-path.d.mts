import type { IncomingMessage, ServerResponse } from "node:http";
export function hasMalformedEscape(url: string | undefined): boolean;
export function refuseMalformedPath(req: IncomingMessage, res: ServerResponse): boolean;
