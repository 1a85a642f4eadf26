/** The error of a failed build: the failing step, the last lines of its output and, when they tell, what to do. */
import { McpboxError } from "../errors.ts";
import { caCertsFix, hostBundle } from "./ca-bundle.ts";
import type { BuildLog } from "./steps.ts";

const MAX_STEP_TEXT = 120;

export function buildFailure(server: string, log: BuildLog, caCerts?: string): McpboxError {
  const step = log.step;
  const where = step ? ` at step ${step.n}/${step.total}: ${cut(step.text)}` : "";
  return new McpboxError("failed", `building ${server} failed${where}`, {
    details: [...log.tail, ...(log.error ? [shortError(log.error)] : [])],
    hint: hintFor([...log.tail, log.error ?? ""].join("\n"), server, caCerts),
  });
}

export function hintFor(output: string, server: string, caCerts?: string, host: () => string | undefined = hostBundle): string {
  if (CERT_ERROR.test(output)) return caCertsFix(caCerts, host());
  if (/E404|404 Not Found|No matching distribution|is not in this registry/i.test(output)) {
    return "the package or version does not exist in the registry: check the server's package";
  }
  if (/pull access denied|registry-1\.docker\.io|manifest unknown|repository does not exist/i.test(output)) {
    return "the engine could not pull a base image: load it locally, or check the registry and your login";
  }
  if (/EAI_AGAIN|ENOTFOUND|Temporary failure in name resolution|Could not resolve host|Network is unreachable/i.test(output)) {
    return "the build cannot reach the package registry: check the network (or use a local package path)";
  }
  return `run \`mcpbox build ${server} --print\` to see the Dockerfile`;
}

/** Node's, OpenSSL's and Python's words for a chain they cannot verify: a proxy that re-signs TLS. */
export const CERT_ERROR = /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|CERTIFICATE_VERIFY_FAILED|unable to get local issuer|self[- ]signed certificate in certificate chain/i;

/** "The command '/bin/sh -c <the whole RUN>' returned a non-zero code: 1" without the command shown above it. */
export const shortError = (e: string) => e.replace(/^The command '[\s\S]*' returned/, "The command returned");

const cut = (s: string) => (s.length > MAX_STEP_TEXT ? `${s.slice(0, MAX_STEP_TEXT - 1)}…` : s);
