/**
 * Steps 1–4 as real flows, in one place for other work (tests, seeds, the engine): the intake
 * (submit, review), the migration window (propose, withdraw, accept, reschedule), the customer's
 * confirmations, and the read models the screens use. Each operation returns whose move it now is
 * and what to tell the other side, and queues that mail in its own transaction (waiting/notify.ts).
 */
export { checkTokenFile, type UploadedFile } from "./intake/check-token-file";
export { submitIntake, type SubmitIntakeResult } from "./intake/submit-intake";
export { acceptSubmission } from "./intake/accept-submission";
export { returnSubmission } from "./intake/return-submission";
export { getIntake, listIntakeItems } from "./intake/get-intake";
export { proposeWindow } from "./window/propose-window";
export { withdrawWindow } from "./window/withdraw-window";
export { acceptWindow } from "./window/accept-window";
export { declineWindows } from "./window/decline-windows";
export { rescheduleWindow } from "./window/reschedule-window";
export { getWindowPlan } from "./window/get-window-plan";
export { windowInvite } from "./window/window-invite";
export { confirmCallbackUrl, confirmSyncingDisabled } from "./confirm/confirm-steps";
export { getConfirmations } from "./confirm/get-confirmations";
export { whoseMove, type Waiting } from "./waiting/waiting-rule";
export type { FlowNotice } from "./waiting/notify";
