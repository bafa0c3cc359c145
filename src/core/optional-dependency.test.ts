import { describe, expect, it } from "vitest";
import {
  importOptional,
  MCP_SDK,
  MissingDependencyError,
  type OptionalDependency,
} from "./optional-dependency.js";

const absent: OptionalDependency = {
  packageName: "glassloop-absent-peer",
  feature: "glassloop/absent",
  install: "npm i -E glassloop-absent-peer@1.0.0",
};

/** What Node's ESM loader throws for a bare specifier that resolves to nothing. */
function notFound(specifier: string): Error {
  return Object.assign(new Error(`Cannot find package '${specifier}' imported from /app/index.mjs`), {
    code: "ERR_MODULE_NOT_FOUND",
  });
}

describe("importOptional", () => {
  it("a missing optional package becomes a MissingDependencyError naming the install command", async () => {
    const error = await importOptional(absent, () => Promise.reject(notFound("glassloop-absent-peer"))).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MissingDependencyError);
    expect(error).toMatchObject({
      code: "missing_dependency",
      packageName: "glassloop-absent-peer",
      install: "npm i -E glassloop-absent-peer@1.0.0",
      message:
        "glassloop/absent needs glassloop-absent-peer, which is not installed. Install it with: npm i -E glassloop-absent-peer@1.0.0",
    });
  });

  it("a real import of an absent package is recognised (the loader's own error, not a hand-made one)", async () => {
    const specifier = "glassloop-absent-peer";
    const error = await importOptional(absent, () => import(/* @vite-ignore */ specifier)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MissingDependencyError);
  });

  it("a subpath of the package counts as the package", async () => {
    const error = await importOptional(MCP_SDK, () =>
      Promise.reject(notFound("@modelcontextprotocol/sdk/client/index.js")),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingDependencyError);
    expect((error as Error).message).toContain("npm i -E @modelcontextprotocol/sdk@1.32.2");
  });

  it("a different missing package, or any other failure, passes through unchanged", async () => {
    const deeper = notFound("some-transitive-dependency");
    await expect(importOptional(absent, () => Promise.reject(deeper))).rejects.toBe(deeper);
    const broken = new SyntaxError("Unexpected token");
    await expect(importOptional(absent, () => Promise.reject(broken))).rejects.toBe(broken);
  });

  it("returns what the loader resolved", async () => {
    await expect(importOptional(absent, async () => ({ ok: 1 }))).resolves.toEqual({ ok: 1 });
  });
});
