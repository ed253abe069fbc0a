/**
 * The intake's HTTP routes beside tRPC (whose 1 MB body cap is too small for token files): checking
 * and submitting a token file (multipart, up to 20 MB), checking and sending a supplementary file
 * (fresh tokens after the bulk run, the same limits), the token-file templates, and a window's
 * calendar invite. The same protections as the tRPC route: a session, the engagement visible to
 * the viewer (another organisation's answers exactly like an unknown id), the same-origin check
 * for posts, and a body read as a stream that stops at the cap, before anything is parsed.
 */
import { readSteps } from "@/db/database";
import { assertCanView } from "@/server/engagements/access";
import { checkTokenFile, submitIntake, windowInvite } from "@/server/engagements/flows";
import { ZIntakeForm } from "@/core/engagements/intake-schemas";
import { AppError } from "@/server/errors";
import { downloadResponse, HTTP_STATUS } from "./downloads";
import { crossOriginRefusal, readBodyWithin } from "@/server/http/request-guards";
import { MAX_FILE_BYTES, tokenFileTemplate, type TemplateFormat } from "@/server/intake";
import { isManagedPlatformKey } from "@/server/platforms";
import { checkSupplementaryFile } from "@/server/migration/supplementary/check-supplementary-file";
import { submitSupplementaryFile } from "@/server/migration/supplementary/submit-supplementary-file";
import type { Actor } from "@/core/accounts/actor";
import type { Context } from "./trpc";

/** The token file route's body cap: the file's limit plus room for the multipart envelope and the form's fields. */
export const TOKEN_FILE_BODY_LIMIT = MAX_FILE_BYTES + 256 * 1024;

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };

/** A JSON answer. */
function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });
}

/** An error answer in one shape: `{ error: { code, message, fields } }`. */
function failure(status: number, code: string, message: string, fields: Record<string, string> | null = null): Response {
  return json(status, { error: { code, message, fields } });
}

/**
 * What is logged of an unexpected error: its name and the stack's frames, and no line of its
 * message — a parser's message may quote the file, and the file holds secrets. The stack starts
 * with the name and the whole message (all its lines); only what follows is kept. A stack that
 * does not start that way (a message changed afterwards) is not logged, since its message lines
 * cannot be told from its frames.
 */
export function internalErrorLog(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const head = `${error.name}${error.message ? `: ${error.message}` : ""}`;
  const stack = error.stack ?? "";
  if (!stack.startsWith(head)) return `${error.name} (stack withheld: it does not start with the message)`;
  const frames = stack.slice(head.length).split("\n").filter((line) => /^\s+at \S/.test(line));
  return [error.name, ...frames].join("\n");
}

/** Runs a handler, turning application errors into their status and anything else into a reference (the answer says nothing else). */
async function answer(run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError) return failure(HTTP_STATUS[error.code], error.code, error.message, error.fields ?? null);
    const ref = crypto.randomUUID().slice(0, 8);
    console.error(`[intake-http] internal error ref=${ref}\n${internalErrorLog(error)}`);
    return failure(500, "INTERNAL_SERVER_ERROR", `Something went wrong on our side (reference ${ref}).`);
  }
}

type Deps = { appOrigin: string; createContext: () => Promise<Context> };

async function signedIn(deps: Deps): Promise<{ ctx: Context; actor: Actor }> {
  const ctx = await deps.createContext();
  if (!ctx.actor) throw new AppError("UNAUTHENTICATED", "Sign in to continue.");
  return { ctx, actor: ctx.actor };
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / 1048576)} MB`;
}

/** The multipart body of a token-file post, read within the cap; throws for a body that is not one. */
async function readUpload(req: Request): Promise<FormData> {
  const type = req.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data")) {
    throw new AppError("BAD_INPUT", "Send the token file as a form upload (multipart/form-data).");
  }
  const read = await readBodyWithin(req, TOKEN_FILE_BODY_LIMIT);
  if (read.tooLarge) {
    throw new AppError("BAD_INPUT", `The file is larger than ${megabytes(MAX_FILE_BYTES)}, the limit for a token file; it was not read. Split the companies over several files or ask support.`, {
      fields: { file: `The file is larger than ${megabytes(MAX_FILE_BYTES)}.` },
    });
  }
  try {
    return await new Request("http://ferry.internal/upload", { method: "POST", headers: { "content-type": type }, body: read.body ?? new Uint8Array() }).formData();
  } catch {
    throw new AppError("BAD_INPUT", "The upload could not be read as a form. Choose the file again and resend it.");
  }
}

async function fileOf(form: FormData): Promise<{ name: string; bytes: Uint8Array }> {
  const file = form.get("file");
  if (!file || typeof file === "string") throw new AppError("BAD_INPUT", "Choose a token file to upload.", { fields: { file: "Choose a token file to upload." } });
  return { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) };
}

function formOf(form: FormData) {
  let contacts: unknown = [];
  try {
    contacts = JSON.parse(String(form.get("contacts") ?? "[]"));
  } catch {
    contacts = null;
  }
  const parsed = ZIntakeForm.safeParse({ clientId: String(form.get("clientId") ?? ""), clientSecret: String(form.get("clientSecret") ?? ""), contacts });
  if (parsed.success) return parsed.data;
  const fields: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path.join(".");
    fields[key] ??= issue.message;
  }
  throw new AppError("BAD_INPUT", "Some fields need your attention.", { fields });
}

/**
 * POST /api/engagements/{id}/token-file (mode "submit") and …/token-file/check (mode "check").
 * A check answers `{ check }` and stores nothing. A submission answers `{ submissionId, companies,
 * check }`, or 422 `{ check }` when the file has blocking problems (nothing stored).
 */
export function handleTokenFileRequest(req: Request, params: { engagementId: string; mode: "check" | "submit" }, deps: Deps): Promise<Response> {
  return answer(async () => {
    const crossOrigin = crossOriginRefusal(req, deps.appOrigin);
    if (crossOrigin) return failure(403, "FORBIDDEN", crossOrigin);
    const { ctx, actor } = await signedIn(deps);
    // Who may see the engagement is settled before a byte of the file is read.
    await readSteps(ctx.database, (tx) => assertCanView(tx, actor, params.engagementId));
    const form = await readUpload(req);
    const file = await fileOf(form);
    if (params.mode === "check") {
      return json(200, { check: await checkTokenFile(ctx.database, actor, { engagementId: params.engagementId, file }) });
    }
    const result = await submitIntake(ctx.database, { ring: ctx.config.keyRing, notify: ctx.config }, actor, { engagementId: params.engagementId, form: formOf(form), file });
    if (!result.ok) return json(422, { error: { code: "BAD_INPUT", message: "The token file has problems to fix; nothing was stored.", fields: null }, check: result.check });
    return json(200, { submissionId: result.submissionId, companies: result.companies, replacedCompanies: result.replacedCompanies, check: result.check });
  });
}

/**
 * POST /api/engagements/{id}/supplementary-file (mode "submit") and …/supplementary-file/check
 * (mode "check"): fresh tokens for the companies that failed on theirs. A check answers `{ check }`
 * and stores nothing. A submission answers `{ fileId, companies, replacedCompanies, check }`, or
 * 422 `{ check }` when the file has blocking problems, by line or whole (nothing stored).
 */
export function handleSupplementaryFileRequest(req: Request, params: { engagementId: string; mode: "check" | "submit" }, deps: Deps): Promise<Response> {
  return answer(async () => {
    const crossOrigin = crossOriginRefusal(req, deps.appOrigin);
    if (crossOrigin) return failure(403, "FORBIDDEN", crossOrigin);
    const { ctx, actor } = await signedIn(deps);
    // Who may see the engagement is settled before a byte of the file is read.
    await readSteps(ctx.database, (tx) => assertCanView(tx, actor, params.engagementId));
    const file = await fileOf(await readUpload(req));
    if (params.mode === "check") {
      return json(200, { check: await checkSupplementaryFile(ctx.database, actor, { engagementId: params.engagementId, file }) });
    }
    const result = await submitSupplementaryFile(ctx.database, { ring: ctx.config.keyRing, notify: ctx.config }, actor, { engagementId: params.engagementId, file });
    if (!result.ok) return json(422, { error: { code: "BAD_INPUT", message: "The file has problems to fix; nothing was stored.", fields: null }, check: result.check });
    return json(200, { fileId: result.fileId, companies: result.companies, replacedCompanies: result.replacedCompanies, check: result.check });
  });
}

/** GET /api/templates/{platformKey}?format=csv|xlsx: the platform's token-file template. */
export function handleTemplateRequest(req: Request, params: { platformKey: string }, deps: Deps): Promise<Response> {
  return answer(async () => {
    await signedIn(deps);
    if (!isManagedPlatformKey(params.platformKey)) throw new AppError("NOT_FOUND", "No managed platform with that key.");
    const format = new URL(req.url).searchParams.get("format") ?? "csv";
    if (format !== "csv" && format !== "xlsx") throw new AppError("BAD_INPUT", "Choose the template as csv or xlsx.");
    const template = await tokenFileTemplate({ platformKey: params.platformKey, format: format satisfies TemplateFormat });
    return downloadResponse({ fileName: template.fileName, contentType: template.contentType, body: new Uint8Array(template.bytes) });
  });
}

/** GET /api/engagements/{id}/windows/{windowId}/invite: a proposed or accepted window as an .ics invite. */
export function handleInviteRequest(_req: Request, params: { engagementId: string; windowId: string }, deps: Deps & { appUrl: string }): Promise<Response> {
  return answer(async () => {
    const { ctx, actor } = await signedIn(deps);
    const invite = await windowInvite(ctx.database, actor, { ...params, appUrl: deps.appUrl });
    return downloadResponse({ fileName: invite.fileName, contentType: "text/calendar; charset=utf-8", body: invite.text });
  });
}
