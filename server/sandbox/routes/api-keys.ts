/**
 * API keys (reference §8): list, create (201; 409 at ten), delete (204).
 */
import { createApiKey } from "../domain/client-accounts";
import { param, type ApiContext } from "../context";
import { badRequest, forbidden, notFound } from "../http/errors";
import { isPlainObject, type ApiResponse } from "../http/io";
import { apiKeyView } from "./views";
import type { ApiRoute } from "./types";

const MAX_NAME = 50;

function readName(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (!isPlainObject(body)) throw badRequest([{ itemId: "body", message: "The body must be an object like {\"name\": \"...\"}." }]);
  const name = body.name;
  if (name === undefined || name === null) return null;
  if (typeof name !== "string") throw badRequest([{ itemId: "name", message: "name must be a string.", validatorName: "CreateApiKey" }]);
  if (name.length > MAX_NAME) {
    throw badRequest(
      [{ itemId: "name", message: `name is ${name.length} characters long; the most is ${MAX_NAME}.`, validatorName: "CreateApiKey" }],
      `Max string length (${MAX_NAME}) for \`name\` reached.`,
    );
  }
  return name;
}

function list(ctx: ApiContext): ApiResponse {
  return { status: 200, body: { results: ctx.app.store.apiKeys.listActive(ctx.client.id).map(apiKeyView) } };
}

function create(ctx: ApiContext): ApiResponse {
  const name = readName(ctx.body);
  const row = createApiKey({ store: ctx.app.store, clientId: ctx.client.id, name, now: ctx.now });
  return { status: 201, body: apiKeyView(row) };
}

function remove(ctx: ApiContext): ApiResponse {
  const id = param(ctx, "apiKeyId");
  const key = ctx.app.store.apiKeys.get(id);
  if (!key || key.deletedAt !== null) throw notFound(`No API key was found with ID ${id}`);
  if (key.clientId !== ctx.client.id) throw forbidden();
  ctx.app.store.apiKeys.markDeleted({ id, at: ctx.now });
  return { status: 204 };
}

export const apiKeyRoutes: readonly ApiRoute[] = [
  { method: "GET", pattern: "/apiKeys", handler: list },
  { method: "POST", pattern: "/apiKeys", handler: create },
  { method: "DELETE", pattern: "/apiKeys/:apiKeyId", handler: remove },
];
