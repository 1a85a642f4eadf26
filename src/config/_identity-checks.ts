/**
 * Who a server runs as and which network stack it joins (SPEC 2.3): root however written, user names (their meaning
 * is the image's), the host's or another container's network in any form. Each refusal names its full opt-in.
 */
import type { ParsedConfig, ParsedServer } from "./schema.ts";
import type { Problem } from "./problems.ts";

type DangerFlags = NonNullable<ParsedServer["dangerous"]>;

/** Root however written: a numeric uid of 0 (`0`, `00`, `+0`, ` 0:0`) or the name root. */
export function isRootUser(user: string | number): boolean {
  const uid = String(user).split(":")[0]!.trim();
  return uid === "root" || (/^\+?\d+$/.test(uid) && Number(uid) === 0);
}

/** A user mcpbox can judge: a numeric uid[:gid] (or root, judged above). A name means what the image's /etc/passwd says. */
const USER = /^(\d{1,10}|root)(:(\d{1,10}|root))?$/;
const MAX_ID = 2 ** 31 - 1;
const validUser = (user: string) => USER.test(user) && user.split(":").every((id) => id === "root" || Number(id) <= MAX_ID);

/** Docker's network name grammar. */
const NETWORK_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

export function checkIdentity(
  server: ParsedServer,
  d: NonNullable<ParsedConfig["defaults"]>,
  dangerous: DangerFlags,
  at: PropertyKey[],
  problems: Problem[],
) {
  const optIn = (flag: keyof DangerFlags) => `${at.join(".")}.dangerous.${flag}`;
  const user = server.user ?? d.user;
  const userAt = server.user !== undefined ? [...at, "user"] : ["defaults", "user"];
  if (user !== undefined && isRootUser(user) && !dangerous.allowRoot) {
    problems.push({
      severity: "error",
      path: userAt,
      message: `runs as root (${JSON.stringify(user)} is uid 0), which is refused`,
      hint: `remove it to run as 1000:1000, or set ${optIn("allowRoot")}: true`,
    });
  } else if (user !== undefined && !validUser(String(user))) {
    problems.push({
      severity: "error",
      path: userAt,
      message: `${JSON.stringify(user)} is not a numeric uid or uid:gid: a user name means whatever the image's /etc/passwd says, root included`,
      hint: 'write the numeric ids, e.g. "1000:1000"',
    });
  }
  const network = server.network ?? d.network;
  const networkAt = server.network !== undefined ? [...at, "network"] : ["defaults", "network"];
  const name = typeof network === "object" ? ("network" in network ? network.network : undefined) : network;
  if (name === "host" && !dangerous.allowHostNetwork) {
    problems.push({
      severity: "error",
      path: networkAt,
      message: 'network "host" shares the host\'s network stack, which is refused',
      hint: `use "bridge", or set ${optIn("allowHostNetwork")}: true`,
    });
  } else if (name?.startsWith("container:")) {
    // another container's network stack: its loopback services and its way out; as foreign as the host's
    if (!dangerous.allowHostNetwork) {
      problems.push({
        severity: "error",
        path: networkAt,
        message: `network "${name}" shares the network stack of another container, which is refused`,
        hint: `use "bridge" or a network of your own, or set ${optIn("allowHostNetwork")}: true`,
      });
    }
  } else if (typeof network === "object" && "network" in network && !NETWORK_NAME.test(network.network)) {
    problems.push({
      severity: "error",
      path: [...networkAt, "network"],
      message: `${JSON.stringify(network.network)} is not a Docker network name`,
      hint: "letters, digits, _, . and -, starting with a letter or digit",
    });
  }
  if ((server.readOnlyRoot ?? d.readOnlyRoot) === false) {
    problems.push({ severity: "warning", path: [...at, "readOnlyRoot"], message: "the root filesystem is writable" });
  }
  for (const [flag, on] of Object.entries(dangerous)) {
    if (on) {
      problems.push({
        severity: "warning",
        path: [...at, "dangerous", flag],
        message: "isolation is weakened by this opt-in",
      });
    }
  }
}
