import { describe, expect, it } from "vitest";
import { endpointUrl } from "./url.js";

describe("endpointUrl", () => {
  it("appends the path to the base URL's path, trailing slashes folded", () => {
    expect(endpointUrl("https://h.test/v1/", "/chat/completions")).toBe("https://h.test/v1/chat/completions");
    expect(endpointUrl("https://h.test", "/v1/messages")).toBe("https://h.test/v1/messages");
  });

  it("keeps the base URL's query after the endpoint path, byte for byte", () => {
    expect(endpointUrl("https://h.test/v1?api-version=2025-01-01&x=a%26b+c", "/responses")).toBe(
      "https://h.test/v1/responses?api-version=2025-01-01&x=a%26b+c",
    );
  });

  it("puts the endpoint's own parameters after the user's, replacing a user parameter of that name", () => {
    expect(
      endpointUrl("https://h.test/v1beta?key=k&alt=json", "/models/m:streamGenerateContent", { alt: "sse" }),
    ).toBe("https://h.test/v1beta/models/m:streamGenerateContent?key=k&alt=sse");
    expect(endpointUrl("https://h.test/v1beta", "/models/m:streamGenerateContent", { alt: "sse" })).toBe(
      "https://h.test/v1beta/models/m:streamGenerateContent?alt=sse",
    );
  });
});
