/**
 * Which engine serves the Docker API (Docker or Podman), and the create options Podman reads differently. The kind
 * comes from the `/_ping` headers (Podman adds `Libpod-Api-Version`; about 1 ms), not from `/version` (its
 * Components say "Podman Engine", but Podman runs conmon and the OCI runtime to answer it: about 1.1 s here).
 */
import type { IncomingMessage } from "node:http";
import type Docker from "dockerode";
import type { ContainerCreateOptions } from "dockerode";

export type EngineKind = "docker" | "podman";

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** Pure: the kind from the `/_ping` response headers (names lower-cased, as Node gives them). */
export function kindFromPing(headers: Headers): EngineKind {
  const server = String(headers["server"] ?? "");
  return headers["libpod-api-version"] !== undefined || /^libpod\//i.test(server) ? "podman" : "docker";
}

/** Pure: the kind from a `/version` answer (Podman's Components name "Podman Engine"). */
export function kindFromVersion(version: { Components?: readonly { Name?: string }[] | null }): EngineKind {
  return (version.Components ?? []).some((c) => /podman/i.test(c?.Name ?? "")) ? "podman" : "docker";
}

const asked = new WeakMap<Docker, Promise<EngineKind>>();

/** The engine's kind, asked once per client; an engine that cannot be asked counts as Docker (its calls then fail as usual). */
export function engineKind(docker: Docker): Promise<EngineKind> {
  let kind = asked.get(docker);
  if (!kind) {
    kind = pingHeaders(docker).then(kindFromPing, () => "docker" as const);
    asked.set(docker, kind);
  }
  return kind;
}

function pingHeaders(docker: Docker): Promise<Headers> {
  return new Promise((resolve, reject) => {
    docker.modem.dial(
      { path: "/_ping", method: "GET", isStream: true, statusCodes: { 200: true, 500: "server error" }, options: {} },
      (err: unknown, res: unknown) => {
        if (err) return reject(err);
        const r = res as IncomingMessage;
        r.resume(); // the body is "OK"
        resolve(r.headers);
      },
    );
  });
}

const OWNER_OPTION = /^(uid|gid)=(\d+)$/;

/**
 * Pure: the create options as this engine reads them. Podman 4 refuses a tmpfs `uid=`/`gid=` option ("unknown mount
 * option"): it has `U` instead, which gives the tmpfs to the container's user. So a tmpfs owned by exactly the
 * container's numeric user gets `U` there; anything else is left for the engine to judge.
 */
export function createOptionsFor(kind: EngineKind, options: ContainerCreateOptions): ContainerCreateOptions {
  const tmpfs = options.HostConfig?.Tmpfs;
  if (kind !== "podman" || !tmpfs || !Object.values(tmpfs).some(hasOwnerOption)) return options;
  const [uid, gid = uid] = (options.User ?? "").split(":");
  const adapted = Object.fromEntries(Object.entries(tmpfs).map(([target, opts]) => [target, podmanTmpfs(opts, uid, gid)]));
  return { ...options, HostConfig: { ...options.HostConfig, Tmpfs: adapted } };
}

/** The create options for this client's engine; asks the engine's kind only when something would differ. */
export async function createOptionsForEngine(docker: Docker, options: ContainerCreateOptions): Promise<ContainerCreateOptions> {
  const tmpfs = options.HostConfig?.Tmpfs;
  if (!tmpfs || !Object.values(tmpfs).some(hasOwnerOption)) return options;
  return createOptionsFor(await engineKind(docker), options);
}

const hasOwnerOption = (opts: string) => opts.split(",").some((o) => OWNER_OPTION.test(o));

function podmanTmpfs(opts: string, uid: string | undefined, gid: string | undefined): string {
  const parts = opts.split(",");
  const owner = Object.fromEntries(parts.map((o) => OWNER_OPTION.exec(o)).filter((m) => m !== null).map((m) => [m[1]!, m[2]!]));
  if (Object.keys(owner).length === 0) return opts;
  const mine = (owner.uid ?? uid) === uid && (owner.gid ?? gid) === gid && uid !== undefined && /^\d+$/.test(uid);
  if (!mine) return opts;
  return [...parts.filter((o) => !OWNER_OPTION.test(o)), "U"].join(",");
}
