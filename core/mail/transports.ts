/** How a mail left Ferry: kept in the in-app outbox only, or sent by SMTP. Owned by the domain; db/schema.ts imports it. */
export const MAIL_TRANSPORTS = ["outbox", "smtp"] as const;
export type MailTransport = (typeof MAIL_TRANSPORTS)[number];
