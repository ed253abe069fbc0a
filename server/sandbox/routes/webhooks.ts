/**
 * Webhook consumers (reference §11; PLATFORM-OAS list-, create-, delete-webhook-consumer):
 * `GET /webhooks` 200 `{results}`, `POST /webhooks` 201 (at most 50 per client), `DELETE
 * /webhooks/{webhookId}` 204. The created consumer's answer adds `secret` (`whsec_…`), which the
 * service shows in its Portal only: the sandbox has no Portal, and a receiver needs it to verify.
 */
import { randomUUID } from "node:crypto";
import { param, type ApiContext } from "../context";
import { ApiError, badRequest, forbidden, notFound, type ValidationItem } from "../http/errors";
import { isPlainObject, type ApiResponse } from "../http/io";
import type { WebhookConsumerRow } from "../store/store";
import { isEventType, MAX_COMPANY_TAG_LENGTH, MAX_COMPANY_TAGS, MAX_CONSUMERS, newWebhookSecret } from "../webhooks/events";
import type { ApiRoute } from "./types";

const VALIDATOR = "CreateWebhookConsumer";
const MAX_URL_LENGTH = 2048;

/** A consumer as the API shows it (`WebhookConsumer`). */
export function webhookConsumerView(row: WebhookConsumerRow): Record<string, unknown> {
  const view: Record<string, unknown> = { id: row.id, url: row.url, eventTypes: row.eventTypes, disabled: row.disabled };
  if (row.companyTags !== null) view.companyTags = row.companyTags;
  return view;
}

function problem(itemId: string, message: string): ValidationItem {
  return { itemId, message, validatorName: VALIDATOR };
}

function readUrl(value: unknown, problems: ValidationItem[]): string {
  if (typeof value !== "string" || value.trim() === "") {
    problems.push(problem("url", "url is required: the absolute http(s) URL that receives the events."));
    return "";
  }
  if (value.length > MAX_URL_LENGTH) problems.push(problem("url", `url is ${value.length} characters long; the most is ${MAX_URL_LENGTH}.`));
  let parsed: URL | null = null;
  try {
    parsed = new URL(value);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
    problems.push(problem("url", `url "${value}" is not an absolute http or https URL.`));
  } else if (parsed.username || parsed.password) {
    problems.push(problem("url", "url must not carry a user name or password."));
  }
  return value;
}

function readEventTypes(value: unknown, problems: ValidationItem[]): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    problems.push(problem("eventTypes", "eventTypes is required: at least one event type, e.g. [\"connection.disconnected\"]."));
    return [];
  }
  const types: string[] = [];
  value.forEach((item: unknown, index) => {
    if (typeof item !== "string" || !isEventType(item)) {
      problems.push(problem(`eventTypes[${index}]`, `${JSON.stringify(item)} is not one of the service's event types.`));
    } else if (!types.includes(item)) {
      types.push(item);
    }
  });
  return types;
}

function readCompanyTags(value: unknown, problems: ValidationItem[]): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) {
    problems.push(problem("companyTags", "companyTags must be an array of \"tagKey:tagValue\" strings."));
    return null;
  }
  if (value.length > MAX_COMPANY_TAGS) problems.push(problem("companyTags", `companyTags has ${value.length} items; the most is ${MAX_COMPANY_TAGS}.`));
  const tags: string[] = [];
  value.forEach((item: unknown, index) => {
    const itemId = `companyTags[${index}]`;
    if (typeof item !== "string" || !/^[^:]+:.*$/.test(item)) {
      problems.push(problem(itemId, `${JSON.stringify(item)} is not in the form "tagKey:tagValue".`));
    } else if (item.length > MAX_COMPANY_TAG_LENGTH) {
      problems.push(problem(itemId, `The tag is ${item.length} characters long; the most is ${MAX_COMPANY_TAG_LENGTH}.`));
    } else {
      tags.push(item);
    }
  });
  return tags;
}

function list(ctx: ApiContext): ApiResponse {
  return { status: 200, body: { results: ctx.app.store.webhooks.listConsumers(ctx.client.id).map(webhookConsumerView) } };
}

function create(ctx: ApiContext): ApiResponse {
  const body = ctx.body;
  if (!isPlainObject(body)) {
    throw badRequest([problem("body", 'The body must be an object like {"url": "https://…", "eventTypes": ["connection.disconnected"]}.')]);
  }
  const problems: ValidationItem[] = [];
  const url = readUrl(body.url, problems);
  const eventTypes = readEventTypes(body.eventTypes, problems);
  const companyTags = readCompanyTags(body.companyTags, problems);
  const disabled = body.disabled;
  if (disabled !== undefined && disabled !== null && typeof disabled !== "boolean") problems.push(problem("disabled", "disabled must be true or false."));
  if (problems.length > 0) throw badRequest(problems);

  const { store } = ctx.app;
  const row = store.transaction(() => {
    if (store.webhooks.countConsumers(ctx.client.id) >= MAX_CONSUMERS) {
      throw new ApiError({
        status: 409,
        error: `The number of webhook consumers is limited to ${MAX_CONSUMERS}. Delete an unused consumer first.`,
        validation: { errors: [problem("url", `The client already has ${MAX_CONSUMERS} webhook consumers.`)], warnings: [] },
      });
    }
    const consumer = {
      id: randomUUID(),
      clientId: ctx.client.id,
      url,
      eventTypes,
      companyTags,
      secret: newWebhookSecret(),
      disabled: disabled === true,
      createdAt: ctx.now,
    };
    store.webhooks.insertConsumer(consumer);
    return { ...consumer, failingSince: null };
  });
  return { status: 201, body: { ...webhookConsumerView(row), secret: row.secret } };
}

function remove(ctx: ApiContext): ApiResponse {
  const id = param(ctx, "webhookId");
  const consumer = ctx.app.store.webhooks.getConsumer(id);
  if (!consumer) throw notFound(`No webhook consumer was found with ID ${id}`);
  if (consumer.clientId !== ctx.client.id) throw forbidden();
  ctx.app.store.webhooks.deleteConsumer(id);
  return { status: 204 };
}

export const webhookRoutes: readonly ApiRoute[] = [
  { method: "GET", pattern: "/webhooks", handler: list },
  { method: "POST", pattern: "/webhooks", handler: create },
  { method: "DELETE", pattern: "/webhooks/:webhookId", handler: remove },
];
