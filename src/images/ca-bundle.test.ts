import { expect, it } from "vitest";
import { caCertsFix, hostBundle } from "./ca-bundle.ts";
import { hintFor } from "./failure.ts";

it("finds the host's bundle in the usual places", () => {
  expect(hostBundle((f) => f === "/etc/pki/tls/certs/ca-bundle.crt")).toBe("/etc/pki/tls/certs/ca-bundle.crt");
  expect(hostBundle(() => false)).toBeUndefined();
});

it("a certificate error in a build names the file for build.caCerts, or says the given one lacks the proxy's CA", () => {
  const npm = "npm error code SELF_SIGNED_CERT_IN_CHAIN\nnpm error request to https://registry.npmjs.org/x failed";
  expect(hintFor(npm, "s", undefined, () => "/etc/ssl/certs/ca-certificates.crt")).toBe(
    'a TLS proxy intercepts downloads: set build: { caCerts: "/etc/ssl/certs/ca-certificates.crt" } in the config (this machine\'s CA bundle), or pass --ca-cert /etc/ssl/certs/ca-certificates.crt; `mcpbox doctor` checks it',
  );
  expect(hintFor("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed", "s", "/ca.pem", () => undefined)).toBe(caCertsFix("/ca.pem", undefined));
  expect(caCertsFix(undefined, undefined)).toContain("<the proxy's CA file, PEM>");
});
