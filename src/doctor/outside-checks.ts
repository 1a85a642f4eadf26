/**
 * Doctor's checks of what builds and image servers need from outside: an `image:` server's image (present, or one
 * its registry has) and TLS from a build to the npm registry (a re-signing proxy needs build.caCerts). Pure.
 */
import { classifyPull, cleanReason, pullFix } from "../images/pull-failure.ts";
import { CHECK, type CheckResult } from "./checks.ts";

export type ImageFacts =
  | { server: string; image: string; state: "present"; size: number }
  | { server: string; image: string; state: "pullable"; digest: string | undefined }
  | { server: string; image: string; state: "unpullable"; reason: string };

/** An `image:` server's image: present locally, or one the registry has (checked without pulling). */
export function imageCheck(f: ImageFacts): CheckResult {
  const name = CHECK.image(f.server);
  if (f.state === "present") return { name, status: "ok", message: `${f.image} (${Math.round(f.size / 1e6)} MB)` };
  if (f.state === "pullable") {
    const digest = f.digest ? ` (${f.digest.slice(0, 19)})` : "";
    return { name, status: "ok", message: `${f.image} is not present locally; the registry has it${digest}: serve and build pull it` };
  }
  return {
    name,
    status: "fail",
    message: `${f.image} is not present locally and cannot be pulled: ${cleanReason(f.reason)}`,
    fix: pullFix(classifyPull(f.reason), f.image, f.server),
  };
}

/** Node's codes for a chain it cannot verify: what a TLS-intercepting proxy with its own CA causes. */
export const CERT_CODES = new Set([
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_UNTRUSTED",
  "CERT_SIGNATURE_FAILURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

export interface TlsFacts {
  url: string;
  /** the base image the probe ran on; undefined when none is present */
  image: string | undefined;
  /** build.caCerts of the config */
  caCerts: string | undefined;
  /** the host's CA bundle, when one of the usual files exists */
  hostBundle: string | undefined;
  /** template servers of the config (they fail to build when TLS fails) */
  usedBy: string[];
  outcome: { ok: true; status: number } | { ok: false; code: string; message: string } | undefined;
}

/** Whether builds will need build.caCerts: a certificate error from inside a container means a re-signing proxy. */
export function tlsCheck(t: TlsFacts): CheckResult {
  const name = CHECK.tls;
  const withCa = t.caCerts ? ` with build.caCerts ${t.caCerts}` : "";
  if (!t.image || !t.outcome) {
    return { name, status: "warn", message: "not checked: no node base image to run the check in", fix: "get the base images first (see above)" };
  }
  if (t.outcome.ok) return { name, status: "ok", message: `a build reaches ${t.url}${withCa} (HTTP ${t.outcome.status})` };
  const { code, message } = t.outcome;
  const needed = t.usedBy.length > 0 ? `; ${t.usedBy.join(", ")} will not build` : "";
  if (CERT_CODES.has(code)) {
    const status = t.usedBy.length > 0 ? "fail" : "warn";
    if (t.caCerts) {
      return { name, status, message: `TLS to ${t.url} fails${withCa} (${code})${needed}`, fix: `build.caCerts does not hold the proxy's CA: point it at the proxy's CA certificate (PEM)` };
    }
    return {
      name,
      status,
      message: `TLS to ${t.url} is intercepted: a proxy re-signs it with a CA that builds do not trust (${code})${needed}`,
      fix: t.hostBundle
        ? `set build: { caCerts: "${t.hostBundle}" } in the config (this machine's CA bundle, which trusts the proxy), or pass --ca-cert ${t.hostBundle} to mcpbox build`
        : "set build.caCerts in the config to the proxy's CA certificate (PEM), or pass --ca-cert <file> to mcpbox build",
    };
  }
  return {
    name,
    status: "warn",
    message: `a build cannot reach ${t.url}${withCa}: ${code}: ${message}`,
    fix: "template servers with registry packages will not build: check the engine's network (local package folders still build)",
  };
}
