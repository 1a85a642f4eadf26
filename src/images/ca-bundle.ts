/** The host's own CA bundle: what to hand a build (build.caCerts) when a TLS proxy re-signs its downloads. */
import fs from "node:fs";

/** Where distributions keep the system's CA bundle (Debian/Ubuntu/Alpine, Fedora/RHEL, macOS/BSD). */
export const HOST_BUNDLES = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"] as const;

export function hostBundle(exists: (file: string) => boolean = fs.existsSync): string | undefined {
  return HOST_BUNDLES.find((f) => exists(f));
}

/** What to do about a certificate error in a build, given the CA file it had (if any). */
export function caCertsFix(caCerts: string | undefined, host: string | undefined): string {
  if (caCerts) return `a TLS proxy intercepts downloads and build.caCerts (${caCerts}) does not hold its CA: point build.caCerts (or --ca-cert) at the proxy's CA certificate (PEM)`;
  const file = host ?? "<the proxy's CA file, PEM>";
  return `a TLS proxy intercepts downloads: set build: { caCerts: "${file}" } in the config${host ? " (this machine's CA bundle)" : ""}, or pass --ca-cert ${file}; \`mcpbox doctor\` checks it`;
}
