/**
 * What a failed pull of an `image:` server means and what to do, as one line: serve, tools, build and doctor all
 * print this same text (SPEC 4.2). The fix sits in the message itself, so a caller that prints only the message
 * (the gateway's server state) still shows it, and none prints it twice. Pure.
 */
import { McpboxError } from "../errors.ts";

export type PullProblem = "not-found" | "denied" | "unreachable" | "untrusted" | "bad-name" | "other";

export function classifyPull(reason: string): PullProblem {
  if (/invalid reference format|invalid repository name|must be lowercase/i.test(reason)) return "bad-name";
  if (/x509|certificate signed by unknown authority|certificate is not valid|tls: /i.test(reason)) return "untrusted";
  if (/manifest unknown|not found: manifest|manifest for .* not found|name unknown|repository name not known/i.test(reason)) return "not-found";
  if (/pull access denied|unauthorized|denied|authentication required|forbidden/i.test(reason)) return "denied";
  if (/no such host|connection refused|i\/o timeout|network is unreachable|dial tcp|request canceled|Client\.Timeout|TLS handshake timeout|EOF$/i.test(reason)) {
    return "unreachable";
  }
  return "other";
}

/** The registry part of a reference ("docker.io" when the first part is not a host). */
export function registryOfImage(image: string): string {
  const first = image.split("/")[0]!;
  const isHost = image.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost");
  return isHost ? first : "docker.io";
}

export function pullFix(problem: PullProblem, image: string, server: string): string {
  const key = `servers.${server}.image`;
  const local = `load or build it locally and tag it as ${image} (docker load -i <file>, or docker tag <local image> ${image})`;
  switch (problem) {
    case "not-found":
      return `the registry has no such image or tag: check the name in ${key}`;
    case "denied":
      return `check the name in ${key}; if the image is private, log in and pull it once yourself: docker login ${registryOfImage(image)} && docker pull ${image}`;
    case "unreachable":
      return `no registry reachable: ${local}`;
    case "untrusted":
      return `the engine does not trust the registry's certificate (a TLS proxy?): give the engine its CA (/etc/docker/certs.d/${registryOfImage(image)}/ca.crt), or ${local}`;
    case "bad-name":
      return `check the name in ${key}`;
    case "other":
      return `check the name in ${key}, or pull it yourself (docker pull ${image}); otherwise ${local}`;
  }
}

/** `<server>: cannot pull image <image>: <reason>; fix: <what to do>`, as an operation failure (exit 1). */
export function pullFailure(server: string, image: string, reason: string, cause?: unknown): McpboxError {
  const text = pullFailureText(server, image, reason);
  return new McpboxError("failed", text, cause === undefined ? {} : { cause });
}

export function pullFailureText(server: string, image: string, reason: string): string {
  return `${server}: cannot pull image ${image}: ${cleanReason(reason)}; fix: ${pullFix(classifyPull(reason), image, server)}`;
}

/** dockerode's "(HTTP code 404) unexpected - manifest for x not found: manifest unknown: manifest unknown " → "manifest for x not found: manifest unknown". */
export function cleanReason(reason: string): string {
  const r = reason.replace(/^\(HTTP code \d+\)\s*[\w ]*-\s*/, "").replace(/\s+/g, " ").trim();
  // the registry's "manifest unknown: manifest unknown": a part said twice in a row is said once
  return r.split(": ").filter((part, i, all) => part !== all[i - 1]).join(": ");
}

/**
 * Folds an error's hint into its message, for callers that print only messages (the gateway's server state), and
 * drops a leading prefix the caller prints itself (the server's name).
 */
export function withFix(e: McpboxError, dropPrefix = ""): McpboxError {
  const message = dropPrefix && e.message.startsWith(dropPrefix) ? e.message.slice(dropPrefix.length) : e.message;
  if (!e.hint && message === e.message) return e;
  return new McpboxError(e.kind, e.hint ? `${message}; fix: ${e.hint}` : message, { details: e.details, cause: e });
}
