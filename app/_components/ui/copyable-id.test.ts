import { describe, expect, it } from "vitest";
import { shortId, urlTail } from "./copyable-id";

describe("identifiers cut to what tells them apart", () => {
  it("keeps an id's first and last characters", () => {
    expect(shortId("3fa85f64-5717-4562-b3fc-2c963f66afa6")).toBe("3fa85f64…afa6");
    expect(shortId("CRM-1007")).toBe("CRM-1007");
  });

  it("shows a link by its end, where the company is, not by the host every link shares", () => {
    expect(urlTail("http://127.0.0.1:4010/link/company/3fa85f64-5717-4562-b3fc-2c963f66afa6")).toBe("…/company/3fa85f64…afa6");
    expect(urlTail("https://link.codat.io/company/0f3c1a2b-aaaa-bbbb-cccc-123456789abc")).toBe("…/company/0f3c1a2b…9abc");
    expect(urlTail("not a url at all, but long enough")).toBe("not a url at… long enough");
  });
});
