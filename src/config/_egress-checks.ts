/**
 * The egress allowlist's checks (SPEC 2.3): every entry parsed by the proxy's own parser, each bad one its own error,
 * `*` refused without its opt-in, and a warning for "bridge" (full egress, host services included).
 */
import { parseAllowlist } from "../egress/allowlist.ts";
import type { ParsedConfig, ParsedServer } from "./schema.ts";
import type { Problem } from "./problems.ts";

type DangerFlags = NonNullable<ParsedServer["dangerous"]>;

export function checkEgress(
  server: ParsedServer,
  d: NonNullable<ParsedConfig["defaults"]>,
  dangerous: DangerFlags,
  at: PropertyKey[],
  problems: Problem[],
) {
  const network = server.network ?? d.network;
  if (network === "bridge") {
    problems.push({
      severity: "warning",
      path: server.network !== undefined ? [...at, "network"] : ["defaults", "network"],
      message: '"bridge" is full network access: the internet, and the host\'s own services (anything listening on 0.0.0.0) stay reachable that way',
      hint: 'list the hosts the server needs instead: network: { allow: ["api.example.com"] }',
    });
  }
  if (typeof network !== "object" || !("allow" in network)) return;
  const allowAt = server.network !== undefined ? [...at, "network", "allow"] : ["defaults", "network", "allow"];
  const { errors } = parseAllowlist(network.allow);
  for (const e of errors) {
    problems.push({
      severity: "error",
      path: [...allowAt, e.index],
      message: e.message,
      hint: e.hint ?? 'entries are "host", "host:port", "*.domain" or "ip/cidr:port"',
    });
  }
  const star = network.allow.findIndex((e) => e.trim() === "*");
  if (star !== -1 && !dangerous.allowAnyEgress) {
    problems.push({
      severity: "error",
      path: [...allowAt, star],
      message: '"*" allows egress to any public host, which is refused',
      hint: `list the hosts the server needs, or set ${at.join(".")}.dangerous.allowAnyEgress: true`,
    });
  }
}
