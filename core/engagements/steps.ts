/** The six steps of a managed migration as words both sides read: number, title, who, gates, when done. */
import type { Responsible, StepNumber } from "./states";

export type StepDefinition = {
  number: StepNumber;
  title: string;
  responsible: Responsible;
  /** Steps that must be done before this one can start or complete. */
  gates: readonly StepNumber[];
  /** When the step counts as done, in the words staff read (and customers, unless `customerDoneWhen` says it for them). */
  doneWhen: string;
  /** The same for the customer, where staff's words name what only staff handle (the service target). */
  customerDoneWhen?: string;
};

/** The six steps of a managed migration (DESIGN.md, "The six steps"). */
export const STEPS: readonly StepDefinition[] = [
  {
    number: 1,
    title: "Details gathered",
    responsible: "customer",
    gates: [],
    doneWhen:
      "Platform, OAuth app client id and secret, service target and a token file with no blocking errors are submitted, and support has accepted them.",
    // Support chooses the service target; the customer only ever submits their own details.
    customerDoneWhen:
      "The OAuth app's client id and secret, the contacts for the migration window and a token file with no blocking errors are submitted, and support has accepted them.",
  },
  {
    number: 2,
    title: "Time agreed",
    responsible: "customer_and_support",
    gates: [1],
    doneWhen: "Support has proposed a migration window with an estimated duration and the customer has accepted it.",
  },
  {
    number: 3,
    title: "Callback URL added",
    responsible: "customer",
    // The callback URL depends only on the platform, known from the engagement's start: the
    // customer can add it while the token file is still being prepared or reviewed.
    gates: [],
    doneWhen: "The customer confirms the platform's callback URL is on its registered OAuth app.",
  },
  {
    number: 4,
    title: "Syncing disabled",
    responsible: "customer",
    gates: [1],
    doneWhen: "The customer confirms its old app has stopped syncing every company to be migrated.",
  },
  {
    number: 5,
    title: "Single-company test",
    responsible: "support",
    gates: [1, 2, 3, 4],
    doneWhen:
      "One company is imported and its checks pass: connection Linked with no reauthorization, every data type synced Complete (or NotSupported).",
  },
  {
    number: 6,
    title: "Bulk migration and handover",
    responsible: "support",
    gates: [5],
    doneWhen:
      "Every remaining company is migrated and verified or explicitly set aside, the handover report is delivered and the tokens are purged.",
  },
];

/** The definition of a step. */
export function stepDefinition(step: StepNumber): StepDefinition {
  const def = STEPS[step - 1];
  if (!def) throw new Error(`No step ${step}`);
  return def;
}
