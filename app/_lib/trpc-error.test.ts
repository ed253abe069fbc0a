import { describe, expect, it } from "vitest";
import { errorCode, toFormError } from "./trpc-error";

describe("toFormError", () => {
  it("takes field messages from a domain error", () => {
    const error = Object.assign(new Error("A user with the email a@b.test already exists."), {
      data: { code: "BAD_REQUEST", fields: { email: "A user with the email a@b.test already exists." }, zodError: null },
    });
    expect(toFormError(error)).toEqual({
      message: "A user with the email a@b.test already exists.",
      fields: { email: "A user with the email a@b.test already exists." },
    });
  });

  it("takes the first message of each zod field and replaces the JSON dump with a summary", () => {
    const error = Object.assign(new Error('[{"code":"too_small"}]'), {
      data: {
        code: "BAD_REQUEST",
        fields: null,
        zodError: { formErrors: [], fieldErrors: { name: ["Enter the organisation's name.", "second"], other: [] } },
      },
    });
    expect(toFormError(error)).toEqual({ message: "Some fields need your attention.", fields: { name: "Enter the organisation's name." } });
  });

  it("prefers a zod form-level message when there is one", () => {
    const error = { message: "x", data: { zodError: { formErrors: ["Nothing to save."], fieldErrors: {} } } };
    expect(toFormError(error).message).toBe("Nothing to save.");
  });

  it("keeps the message of an error without fields", () => {
    const error = Object.assign(new Error("Step 5 cannot start."), { data: { code: "PRECONDITION_FAILED", fields: null, zodError: null } });
    expect(toFormError(error)).toEqual({ message: "Step 5 cannot start.", fields: {} });
  });

  it("copes with things that are not tRPC errors", () => {
    expect(toFormError(new Error("Network down"))).toEqual({ message: "Network down", fields: {} });
    expect(toFormError(undefined)).toEqual({ message: "Something went wrong. Please try again.", fields: {} });
    expect(toFormError("plain")).toEqual({ message: "plain", fields: {} });
  });
});

describe("errorCode", () => {
  it("reads the code of a tRPC error and nothing else", () => {
    expect(errorCode({ data: { code: "NOT_FOUND" } })).toBe("NOT_FOUND");
    expect(errorCode(new Error("x"))).toBeNull();
    expect(errorCode(null)).toBeNull();
  });
});
