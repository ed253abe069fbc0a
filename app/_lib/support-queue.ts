/**
 * The engagements in support's queue, as the navigation counts them and the list shows them: whose
 * move is support's (a review, a proposal, a test, the bulk run, the report…). One input for the
 * server's count and the browser's, so both ask the same query.
 */
export const SUPPORT_QUEUE = { waitingOn: "support", page: 1, pageSize: 1 } as const;
