import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { amzDate, signatureV4 } from "./sigv4.js";

interface Vector {
  name: string;
  request: {
    method: string;
    path: string;
    query: Record<string, string>;
    headers: Record<string, string>;
    body?: string;
  };
  authorization: string;
}

const suite = JSON.parse(
  readFileSync(new URL("../../../test/fixtures/sigv4/aws-sigv4-suite.json", import.meta.url), "utf8"),
) as {
  region: string;
  service: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  signingDate: string;
  requests: Vector[];
};

describe("SigV4 against AWS's published test suite", () => {
  it.each(suite.requests.map((v) => [v.name, v] as const))("%s", (_name, vector) => {
    const authorization = signatureV4(
      { ...vector.request, body: vector.request.body ?? "" },
      suite.credentials,
      { region: suite.region, service: suite.service, date: new Date(suite.signingDate) },
    );
    expect(authorization).toBe(vector.authorization);
  });

  it("formats x-amz-date as the suite does", () => {
    expect(amzDate(new Date(suite.signingDate))).toBe("20150830T123600Z");
  });
});
