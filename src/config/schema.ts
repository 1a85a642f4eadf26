/**
 * The one zod schema of sandbox.config.ts: the source of the config's TypeScript types, of `mcpbox schema`
 * (JSON Schema) and of the editor types `mcpbox init` leaves behind. Policy checks that need the file system
 * (forbidden mounts, missing sources) live in policy-checks.ts, not here.
 */
import { z } from "zod";
import { IMAGE_MESSAGE, IMAGE_REFERENCE, REGISTRY_REFERENCE } from "./_reference.ts";
import { SOURCE_KEYS, prefixRule, serverSourceRule } from "./_rules.ts";

export { SOURCE_KEYS };

const SIZE = /^\d+(\.\d+)?\s*([bkmg]|kb|mb|gb|ki|mi|gi|kib|mib|gib)?$/i;
export const Size = z
  .string()
  .regex(SIZE, { message: 'must be a size like "512m", "1g" or "64k"' })
  .describe('A size like "512m" or "1g"');

const Glob = z.string().min(1).describe("A glob pattern on the server's own tool names, e.g. delete_*");
const EnvName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "must be an environment variable name (letters, digits, _)" });

export const Mount = z
  .strictObject({
    source: z.string().min(1).describe("Host path, relative to the config file's folder"),
    target: z
      .string()
      .startsWith("/", { message: 'must be an absolute path inside the container, e.g. "/data"' })
      .describe("Absolute path inside the container"),
    readOnly: z.boolean().optional().describe("Read-only unless set to false"),
  })
  .describe("A bind mount, read-only unless readOnly: false")
  .meta({ id: "Mount" });

export const Network = z
  .union([
    z.literal("none"),
    z.literal("bridge"),
    z.literal("host").describe("Refused unless dangerous.allowHostNetwork"),
    z
      .templateLiteral(["container:", z.string().min(1)])
      .describe("Another container's network stack: refused unless dangerous.allowHostNetwork")
      .meta({ tsType: "`container:${string}`" }), // the editor types keep the other values' checks
    z.strictObject({ network: z.string().min(1).describe("A Docker network name") }),
    z.strictObject({
      allow: z
        .array(z.string().min(1))
        .min(1, { message: 'is empty: use network: "none" for no network at all' })
        .describe('Egress only to these, through mcpbox\'s proxy: "host" (ports 443, 80), "host:port", "*.domain", "ip/cidr:port"; "*" needs dangerous.allowAnyEgress'),
    }),
  ], { error: 'must be "none", "bridge", { allow: ["host", ...] } or { network: "<docker network name>" }' })
  .describe('"none" (default), "bridge", { allow: ["api.example.com", "db.internal:5432"] } (egress through mcpbox\'s proxy), or { network: "<docker network name>" }');

export const Limits = z
  .strictObject({
    memory: Size.optional().describe('Memory limit, no swap beyond it (default "512m")'),
    cpus: z.number().positive().max(1024).optional().describe("CPU limit (default 1)"),
    pids: z.number().int().min(8).max(1_000_000).optional().describe("Process limit (default 256)"),
    tmpfs: Size.optional().describe('Size of the noexec tmpfs on /tmp (default "64m")'),
  })
  .meta({ id: "Limits" });

export const Dangerous = z
  .strictObject({
    allowRoot: z.boolean().optional(),
    allowHostNetwork: z.boolean().optional().describe('Allow network "host" and another container\'s network ("container:<id>")'),
    allowDockerSocket: z.boolean().optional(),
    allowSensitiveMounts: z.boolean().optional(),
    allowWritableConfig: z
      .boolean()
      .optional()
      .describe("Allow a writable mount of a folder holding the config, a module it imports, $MCPBOX_HOME or a client's config"),
    allowAnyEgress: z.boolean().optional().describe('Allow network: { allow: ["*"] } (any public host; private addresses still need their own entry)'),
  })
  .describe("Explicit opt-ins for what validation refuses otherwise");

export const ClientRequests = z
  .strictObject({
    sampling: z.boolean().optional().describe("May the server ask the client's model (sampling/createMessage)? Default false"),
    elicitation: z.boolean().optional().describe("May the server ask the person (elicitation/create)? Default true"),
    roots: z.boolean().optional().describe("May the server ask for the client's roots (translated to mount targets)? Default true"),
  })
  .describe("Which server-to-client requests the server may make (SPEC 9)")
  .meta({ id: "ClientRequests" });

/** The longest a Node timer can wait; a longer one fires at once (every call would time out immediately). */
const MAX_TIMER_MS = 2_147_483_647;
const milliseconds = () =>
  z.number().int().positive().max(MAX_TIMER_MS, `at most ${MAX_TIMER_MS} ms (about 24 days), the longest a timer can wait`);

export const Timeouts = z.strictObject({
  startupMs: milliseconds().optional(),
  callMs: milliseconds().optional(),
  runMs: milliseconds().optional().describe("code-runner: wall-clock limit of one run"),
});

/** Policy keys: allowed per server and under `defaults`. */
export const policyShape = {
  mounts: z.array(Mount).optional(),
  network: Network.optional(),
  limits: Limits.optional(),
  user: z
    .union([z.string().min(1), z.number().int().nonnegative()])
    .optional()
    .describe('numeric uid[:gid] (default "1000:1000"); user names are refused (the image says what they mean); root needs dangerous.allowRoot'),
  readOnlyRoot: z.boolean().optional(),
  tools: z.strictObject({ allow: z.array(Glob).optional(), deny: z.array(Glob).optional() }).optional(),
  approve: z.array(Glob).optional().describe("Tools that need a person's approval per call"),
  timeouts: Timeouts.optional(),
  prefix: z
    .union([
      z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,32}$/, { message: "must be 1-32 letters, digits, _ or -" })
        // "__" separates prefix and name: a prefix holding it (or ending in "_") could forge another server's names
        .refine(prefixRule, { message: 'must not contain "__" or end with "_" (the separator of prefix and name)' }),
      z.literal(false),
    ])
    .optional()
    .describe("Name prefix in the gateway (default: the server's name); false for none"),
  startup: z.enum(["eager", "lazy"]).optional(),
  restart: z.enum(["on-failure", "never"]).optional(),
  pathArguments: z
    .array(z.string().min(1))
    .optional()
    .describe("Extra tool argument names that hold paths and must stay inside the mount targets"),
  clientRequests: ClientRequests.optional(),
  runtime: z
    .enum(["runc", "gvisor"])
    .optional()
    .describe('"runc" (default: the engine\'s own runtime) or "gvisor" (the engine\'s runsc, a user-space kernel between the server and the host\'s)'),
  dangerous: Dangerous.optional(),
};

export const Defaults = z.strictObject(policyShape).describe("Policy applied under every server").meta({ id: "Policy" });

export const Secret = z.union([
  z.strictObject({ env: EnvName.describe("Host environment variable to read when serving") }),
  z.strictObject({ file: z.string().min(1).describe("File to read when serving, relative to the config") }),
], { error: 'must be { env: "HOST_VARIABLE" } or { file: "path/to/file" }' });

/** An image reference as Docker's grammar has it (never a leading `-`, no spaces, no control characters). */
export const ImageReference = z.string().min(1).max(512).regex(IMAGE_REFERENCE, { message: IMAGE_MESSAGE });

export const BuildSource = z.strictObject({
  context: z.string().min(1),
  dockerfile: z.string().min(1).optional(),
  args: z.record(z.string(), z.string()).optional(),
});

export const LANGUAGES = ["python", "node", "bash"] as const;

/** The code runner's containers: a number is the warm ones per language (the first form, kept working). */
export const Pool = z
  .union([
    z.number().int().min(0).max(16),
    z.strictObject({
      warm: z.number().int().min(0).max(16).optional().describe("warm containers per language, started ahead (default 0)"),
      maxConcurrent: z.number().int().min(1).max(64).optional().describe("runs at once (default 4); later ones wait in a queue"),
      maxQueued: z.number().int().min(0).max(1024).optional().describe("runs waiting at most (default 16); more are refused"),
    }),
  ])
  .describe("code-runner: warm containers per language, or { warm, maxConcurrent, maxQueued }");

export const Server = z
  .strictObject({
    image: ImageReference.optional().describe("A prebuilt image"),
    template: z.enum(["node", "python"]).optional().describe("Build the image from a template; needs package"),
    package: z
      .string()
      .min(1)
      .optional()
      .describe("name@version, name==version, or a local folder or archive path (with template)"),
    build: BuildSource.optional().describe("Your own Dockerfile"),
    builtin: z.literal("code-runner").optional().describe("A server implemented by mcpbox"),
    command: z.array(z.string()).optional().describe("Replaces the image's entrypoint"),
    args: z.array(z.string()).optional(),
    env: z.record(EnvName, z.string()).optional().describe("Environment variables (not secret)"),
    secrets: z.record(EnvName, Secret).optional().describe("Resolved when serving; never written anywhere"),
    languages: z.array(z.enum(LANGUAGES)).min(1).optional().describe("code-runner: languages offered"),
    maxOutputBytes: z.number().int().positive().optional().describe("code-runner: cap on stdout and stderr"),
    pool: Pool.optional(),
    ...policyShape,
  })
  .superRefine(serverSourceRule, { when: (payload) => typeof payload.value === "object" && payload.value !== null })
  .meta({ id: "Server" });

export const BuildSettings = z.strictObject({
  caCerts: z.string().min(1).optional().describe("A CA bundle handed to package managers during builds"),
  baseImages: z
    .strictObject({
      node: ImageReference.optional(),
      python: ImageReference.optional(),
    })
    .optional()
    .describe("Base images of the templates"),
  registry: z
    .string()
    .min(1)
    .regex(REGISTRY_REFERENCE, { message: 'must be a registry like "registry.example.com/team" or "127.0.0.1:5000"' })
    .optional()
    .describe("Where --push sends images"),
});

export const Audit = z.strictObject({
  path: z.string().min(1).optional().describe("Audit log folder (default $MCPBOX_HOME/audit)"),
  enabled: z.boolean().optional(),
});

/** An engine runtime name: it reaches `docker run --runtime` and the engine's API (no leading "-", no spaces). */
const RuntimeName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, { message: 'must be a runtime name as the engine lists it (letters, digits, _ . -), e.g. "runsc"' });

export const EngineSettings = z.strictObject({
  runtimes: z
    .strictObject({
      runc: RuntimeName.optional().describe("The engine's runtime for runtime: \"runc\" (default: none asked, the engine's default)"),
      gvisor: RuntimeName.optional().describe('The engine\'s runtime for runtime: "gvisor" (default "runsc")'),
    })
    .optional()
    .describe("The names the engine registered its runtimes under (`docker info` lists them)"),
});

const SERVER_NAME = /^[a-z0-9][a-z0-9_-]{0,47}$/;

export const UserConfigSchema = z
  .strictObject({
    $schema: z.string().optional(),
    defaults: Defaults.optional(),
    build: BuildSettings.optional(),
    audit: Audit.optional(),
    engine: EngineSettings.optional().describe("How the container engine names its runtimes"),
    servers: z.record(
      z.string().regex(SERVER_NAME, {
        message: "server names must be lowercase letters, digits, _ or - (at most 48), starting with a letter or digit",
      }),
      Server,
    ),
  })
  .describe("mcpbox sandbox configuration");

export type UserConfig = z.input<typeof UserConfigSchema>;
export type ServerConfig = z.input<typeof Server>;
export type PolicyConfig = z.input<typeof Defaults>;
export type ParsedConfig = z.output<typeof UserConfigSchema>;
export type ParsedServer = z.output<typeof Server>;
export type MountConfig = z.output<typeof Mount>;
export type NetworkConfig = z.output<typeof Network>;

/** The JSON Schema of the config (what `mcpbox schema` prints). */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(UserConfigSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
}
