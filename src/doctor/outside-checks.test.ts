import { describe, expect, it } from "vitest";
import { imageCheck, tlsCheck, type TlsFacts } from "./outside-checks.ts";

describe("imageCheck", () => {
  it("passes a present image and one the registry has, naming the server", () => {
    expect(imageCheck({ server: "gh", image: "a/b:1", state: "present", size: 12e6 })).toEqual({ name: "image (gh)", status: "ok", message: "a/b:1 (12 MB)" });
    expect(imageCheck({ server: "gh", image: "a/b:1", state: "pullable", digest: "sha256:0123456789abcdef0123" })).toMatchObject({
      status: "ok",
      message: "a/b:1 is not present locally; the registry has it (sha256:0123456789ab): serve and build pull it",
    });
  });

  it("fails one that cannot be pulled with the fix its reason calls for", () => {
    const r = imageCheck({ server: "gh", image: "r/x:1", state: "unpullable", reason: "manifest unknown: manifest unknown" });
    expect(r).toEqual({
      name: "image (gh)",
      status: "fail",
      message: "r/x:1 is not present locally and cannot be pulled: manifest unknown",
      fix: "the registry has no such image or tag: check the name in servers.gh.image",
    });
    const offline = imageCheck({ server: "gh", image: "r/x:1", state: "unpullable", reason: "dial tcp: lookup r on 1.1.1.1:53: no such host" });
    expect(offline.fix).toMatch(/^no registry reachable: load or build it locally and tag it as r\/x:1/);
  });
});

describe("tlsCheck", () => {
  const facts = (over: Partial<TlsFacts>): TlsFacts => ({
    url: "https://registry.npmjs.org/",
    image: "node:24",
    caCerts: undefined,
    hostBundle: "/etc/ssl/certs/ca-certificates.crt",
    usedBy: [],
    outcome: { ok: true, status: 200 },
    ...over,
  });
  const intercepted = { ok: false as const, code: "SELF_SIGNED_CERT_IN_CHAIN", message: "self-signed certificate in certificate chain" };

  it("passes when a build reaches the registry, saying with which CA file", () => {
    expect(tlsCheck(facts({}))).toMatchObject({ status: "ok", message: "a build reaches https://registry.npmjs.org/ (HTTP 200)" });
    expect(tlsCheck(facts({ caCerts: "/ca.pem" })).message).toBe("a build reaches https://registry.npmjs.org/ with build.caCerts /ca.pem (HTTP 200)");
  });

  it("flags interception and names the host bundle for build.caCerts; a failure when a template server needs it", () => {
    const r = tlsCheck(facts({ outcome: intercepted, usedBy: ["files"] }));
    expect(r.status).toBe("fail");
    expect(r.message).toBe("TLS to https://registry.npmjs.org/ is intercepted: a proxy re-signs it with a CA that builds do not trust (SELF_SIGNED_CERT_IN_CHAIN); files will not build");
    expect(r.fix).toContain('set build: { caCerts: "/etc/ssl/certs/ca-certificates.crt" }');
    expect(tlsCheck(facts({ outcome: intercepted })).status).toBe("warn");
    expect(tlsCheck(facts({ outcome: intercepted, hostBundle: undefined })).fix).toContain("the proxy's CA certificate (PEM)");
  });

  it("says when build.caCerts is set but lacks the proxy's CA", () => {
    const r = tlsCheck(facts({ outcome: { ...intercepted, code: "UNABLE_TO_GET_ISSUER_CERT" }, caCerts: "/x.pem", usedBy: ["a"] }));
    expect(r).toMatchObject({ status: "fail", fix: expect.stringContaining("does not hold the proxy's CA") });
  });

  it("warns, without blaming TLS, when the registry is unreachable or there is no base image", () => {
    expect(tlsCheck(facts({ outcome: { ok: false, code: "ENOTFOUND", message: "getaddrinfo ENOTFOUND" } }))).toMatchObject({ status: "warn", message: expect.stringContaining("cannot reach") });
    expect(tlsCheck(facts({ image: undefined, outcome: undefined })).message).toMatch(/^not checked/);
  });
});
