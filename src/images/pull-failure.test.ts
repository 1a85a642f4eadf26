import { describe, expect, it } from "vitest";
import { classifyPull, cleanReason, pullFailureText, pullFix, registryOfImage, withFix } from "./pull-failure.ts";
import { McpboxError } from "../errors.ts";

describe("classifyPull", () => {
  it.each([
    ["manifest for 127.0.0.1:5000/nope/missing:1 not found: manifest unknown: manifest unknown", "not-found"],
    ["pull access denied for nope/x, repository does not exist or may require 'docker login': denied: requested access to the resource is denied", "denied"],
    ["unauthorized: authentication required", "denied"],
    ['Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io on 10.0.0.53:53: no such host', "unreachable"],
    ['Get "http://127.0.0.1:5001/v2/": dial tcp 127.0.0.1:5001: connect: connection refused', "unreachable"],
    ['Get "https://ghcr.io/v2/": x509: certificate signed by unknown authority', "untrusted"],
    ["invalid reference format", "bad-name"],
    ["something else", "other"],
  ] as const)("%s → %s", (reason, problem) => {
    expect(classifyPull(reason)).toBe(problem);
  });
});

describe("the fix", () => {
  it("names the key to check, the registry to log in to, or how to load the image", () => {
    expect(pullFix("not-found", "a/b:1", "s")).toBe("the registry has no such image or tag: check the name in servers.s.image");
    expect(pullFix("denied", "ghcr.io/o/p:1", "s")).toContain("docker login ghcr.io && docker pull ghcr.io/o/p:1");
    expect(pullFix("denied", "o/p:1", "s")).toContain("docker login docker.io");
    expect(pullFix("unreachable", "o/p:1", "s")).toBe("no registry reachable: load or build it locally and tag it as o/p:1 (docker load -i <file>, or docker tag <local image> o/p:1)");
  });

  it("finds the registry of a reference", () => {
    expect(registryOfImage("127.0.0.1:5000/x/y:1")).toBe("127.0.0.1:5000");
    expect(registryOfImage("localhost/x")).toBe("localhost");
    expect(registryOfImage("ghcr.io/a/b")).toBe("ghcr.io");
    expect(registryOfImage("library/node:24")).toBe("docker.io");
    expect(registryOfImage("node")).toBe("docker.io");
  });
});

describe("the text", () => {
  it("is one line: server, image, the engine's reason without its wrapping, the fix", () => {
    const reason = "(HTTP code 404) unexpected - manifest for r/x:1 not found: manifest unknown: manifest unknown ";
    expect(cleanReason(reason)).toBe("manifest for r/x:1 not found: manifest unknown");
    expect(pullFailureText("s", "r/x:1", reason)).toBe(
      "s: cannot pull image r/x:1: manifest for r/x:1 not found: manifest unknown; fix: the registry has no such image or tag: check the name in servers.s.image",
    );
  });

  it("withFix folds the hint into the message and drops the prefix the caller prints", () => {
    const e = withFix(new McpboxError("failed", "s: building s failed", { hint: "do this", details: ["npm error x"] }), "s: ");
    expect([e.message, e.hint, e.details]).toEqual(["building s failed; fix: do this", undefined, ["npm error x"]]);
    const plain = new McpboxError("failed", "other");
    expect(withFix(plain, "s: ")).toBe(plain);
  });
});
