/**
 * How long an invitation link stays valid: one number for the server that sets the expiry, the
 * mail that says it and the admin page that tells whoever invites.
 */
export const INVITATION_TTL_DAYS = 7;

/** The same lifetime in milliseconds, for the expiry. */
export const INVITATION_TTL_MS = INVITATION_TTL_DAYS * 24 * 60 * 60 * 1000;
