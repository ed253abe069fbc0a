/**
 * Subjects of the mail about one engagement, written one way everywhere ("[FER-1001] Migration
 * window accepted"), so an inbox or the outbox sorts and searches them by reference.
 */
export function engagementSubject(reference: string, text: string): string {
  return `[${reference}] ${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
