import { describe, expect, it } from "vitest";
import { scrubSecrets } from "../cli/failure.js";
import {
  envSecrets,
  isSecretEnvName,
  Redactor,
  redact,
  Redactor as TraceRedactor,
  urlSecrets,
} from "./redact.js";

const ENV = {
  DB_PASSWORD: "hunter7",
  SERVICE_KEY: "svc-4f9a1c2e",
  GITHUB_PAT: "patvalue-8c1d",
  PGPASSWORD: "pgsecret-77",
  DATABASE_URL: "postgres://app:url-pw-123@db.internal/app",
  HOME: "/home/someone",
  PATH: "/usr/bin:/bin",
};
const TEXTS = [
  "pw hunter7, key svc-4f9a1c2e, pat patvalue-8c1d, pg pgsecret-77, url-pw-123",
  "GET https://bob:hunter-two@proxy.test/v1?api-key=abc123456&alt=sse",
  "Authorization: Bearer abcdefgh12345678 from sk-proj-0123456789abcdef at /home/someone",
];

describe("one redaction rule", () => {
  it("the CLI's scrub and the trace's redactor are the same rule, from one place", () => {
    expect(TraceRedactor).toBe(Redactor);
    const trace = new TraceRedactor({ env: ENV });
    for (const text of TEXTS) expect(scrubSecrets(text, ENV)).toBe(trace.text(text));
    expect(trace.text(TEXTS[0] as string)).toBe(
      "pw [REDACTED], key [REDACTED], pat [REDACTED], pg [REDACTED], [REDACTED]",
    );
    expect(trace.text(TEXTS[1] as string)).toBe(
      "GET https://[REDACTED]@proxy.test/v1?api-key=[REDACTED]&alt=sse",
    );
    // Ordinary values of ordinary variables are left alone.
    expect(trace.text(TEXTS[2] as string)).toBe(
      "Authorization: Bearer [REDACTED] from [REDACTED] at /home/someone",
    );
  });

  it("the HTTP layer's redact is the same rule with the request's own secrets", () => {
    for (const text of TEXTS) {
      expect(redact(text, ["hunter7"])).toBe(new Redactor({ env: {}, secrets: ["hunter7"] }).text(text));
    }
    // Six characters is the one threshold: shorter strings are not treated as secrets anywhere.
    expect(redact("abcde and abcdef", ["abcde", "abcdef"])).toBe("abcde and [REDACTED]");
    expect(scrubSecrets("12345 123456", { A_TOKEN: "12345", B_TOKEN: "123456" })).toBe("12345 [REDACTED]");
  });

  it("names a secret by whole parts of the variable name", () => {
    for (const name of [
      "PGPASSWORD",
      "DB_PASS",
      "GITHUB_PAT",
      "SESSION_COOKIE",
      "OPENAI_API_KEY",
      "HF_TOKEN",
    ])
      expect(isSecretEnvName(name), name).toBe(true);
    for (const name of ["PATH", "GIT_AUTHOR_NAME", "XAUTHORITY", "KEYBOARD_LAYOUT", "PASSAGE_DIR", "PWD"])
      expect(isSecretEnvName(name), name).toBe(false);
  });

  it("finds the credentials inside URLs, in text and in the environment", () => {
    expect(urlSecrets("https://user:p%40ss-word@host/x?key=k-123456&x=1")).toEqual([
      "p%40ss-word",
      "p@ss-word",
      "k-123456",
    ]);
    expect(urlSecrets("https://ghp-token-as-user@github.com/o/r.git")).toEqual(["ghp-token-as-user"]);
    expect(urlSecrets("http://127.0.0.1:8080/v1")).toEqual([]);
    expect(envSecrets({ DATABASE_URL: ENV.DATABASE_URL, HOME: ENV.HOME })).toEqual(["url-pw-123"]);
  });

  it("scrubs a boxed string (`new String`) as the text JSON writes for it, in every serializer", () => {
    const redactor = new Redactor({ env: ENV });
    const boxed = { note: new String("pw hunter7"), list: [new String("key svc-4f9a1c2e")] };
    const expected = '{"note":"pw [REDACTED]","list":["key [REDACTED]"]}';
    expect(redactor.stringify(boxed)).toBe(expected);
    expect(redactor.stringifyAside(boxed, () => undefined)).toBe(expected);
    expect(JSON.stringify(redactor.value(boxed))).toBe(expected);
  });
});
