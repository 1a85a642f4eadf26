// Types of mcpbox's sandbox.config.ts, generated from mcpbox's config schema.
// Written by `mcpbox init`; `mcpbox init --force` rewrites it. Do not edit.
declare module "mcpbox" {
  /**
   * mcpbox sandbox configuration
   */
  export interface UserConfig {
    $schema?: string;
    defaults?: Policy;
    build?: {
      /**
       * A CA bundle handed to package managers during builds
       */
      caCerts?: string;
      /**
       * Base images of the templates
       */
      baseImages?: {
        node?: string;
        python?: string;
      };
      /**
       * Where --push sends images
       */
      registry?: string;
    };
    audit?: {
      /**
       * Audit log folder (default $MCPBOX_HOME/audit)
       */
      path?: string;
      enabled?: boolean;
    };
    /**
     * How the container engine names its runtimes
     */
    engine?: {
      /**
       * The names the engine registered its runtimes under (`docker info` lists them)
       */
      runtimes?: {
        /**
         * The engine's runtime for runtime: "runc" (default: none asked, the engine's default)
         */
        runc?: string;
        /**
         * The engine's runtime for runtime: "gvisor" (default "runsc")
         */
        gvisor?: string;
      };
    };
    servers: {
      [k: string]: Server | undefined;
    };
  }
  /**
   * Policy applied under every server
   */
  export interface Policy {
    mounts?: Mount[];
    /**
     * "none" (default), "bridge", { allow: ["api.example.com", "db.internal:5432"] } (egress through mcpbox's proxy), or { network: "<docker network name>" }
     */
    network?:
      | "none"
      | "bridge"
      | "host"
      | `container:${string}`
      | {
          /**
           * A Docker network name
           */
          network: string;
        }
      | {
          /**
           * Egress only to these, through mcpbox's proxy: "host" (ports 443, 80), "host:port", "*.domain", "ip/cidr:port"; "*" needs dangerous.allowAnyEgress
           *
           * @minItems 1
           */
          allow: [string, ...string[]];
        };
    limits?: Limits;
    /**
     * numeric uid[:gid] (default "1000:1000"); user names are refused (the image says what they mean); root needs dangerous.allowRoot
     */
    user?: string | number;
    readOnlyRoot?: boolean;
    tools?: {
      /**
       * Items: A glob pattern on the server's own tool names, e.g. delete_*
       */
      allow?: string[];
      /**
       * Items: A glob pattern on the server's own tool names, e.g. delete_*
       */
      deny?: string[];
    };
    /**
     * Tools that need a person's approval per call
     *
     * Items: A glob pattern on the server's own tool names, e.g. delete_*
     */
    approve?: string[];
    timeouts?: {
      startupMs?: number;
      callMs?: number;
      /**
       * code-runner: wall-clock limit of one run
       */
      runMs?: number;
    };
    /**
     * Name prefix in the gateway (default: the server's name); false for none
     */
    prefix?: string | false;
    startup?: "eager" | "lazy";
    restart?: "on-failure" | "never";
    /**
     * Extra tool argument names that hold paths and must stay inside the mount targets
     */
    pathArguments?: string[];
    clientRequests?: ClientRequests;
    /**
     * "runc" (default: the engine's own runtime) or "gvisor" (the engine's runsc, a user-space kernel between the server and the host's)
     */
    runtime?: "runc" | "gvisor";
    /**
     * Explicit opt-ins for what validation refuses otherwise
     */
    dangerous?: {
      allowRoot?: boolean;
      /**
       * Allow network "host" and another container's network ("container:<id>")
       */
      allowHostNetwork?: boolean;
      allowDockerSocket?: boolean;
      allowSensitiveMounts?: boolean;
      /**
       * Allow a writable mount of a folder holding the config, a module it imports, $MCPBOX_HOME or a client's config
       */
      allowWritableConfig?: boolean;
      /**
       * Allow network: { allow: ["*"] } (any public host; private addresses still need their own entry)
       */
      allowAnyEgress?: boolean;
    };
  }
  /**
   * A bind mount, read-only unless readOnly: false
   */
  export interface Mount {
    /**
     * Host path, relative to the config file's folder
     */
    source: string;
    /**
     * Absolute path inside the container
     */
    target: string;
    /**
     * Read-only unless set to false
     */
    readOnly?: boolean;
  }
  export interface Limits {
    /**
     * Memory limit, no swap beyond it (default "512m")
     */
    memory?: string;
    /**
     * CPU limit (default 1)
     */
    cpus?: number;
    /**
     * Process limit (default 256)
     */
    pids?: number;
    /**
     * Size of the noexec tmpfs on /tmp (default "64m")
     */
    tmpfs?: string;
  }
  /**
   * Which server-to-client requests the server may make (SPEC 9)
   */
  export interface ClientRequests {
    /**
     * May the server ask the client's model (sampling/createMessage)? Default false
     */
    sampling?: boolean;
    /**
     * May the server ask the person (elicitation/create)? Default true
     */
    elicitation?: boolean;
    /**
     * May the server ask for the client's roots (translated to mount targets)? Default true
     */
    roots?: boolean;
  }
  export interface Server {
    /**
     * A prebuilt image
     */
    image?: string;
    /**
     * Build the image from a template; needs package
     */
    template?: "node" | "python";
    /**
     * name@version, name==version, or a local folder or archive path (with template)
     */
    package?: string;
    /**
     * Your own Dockerfile
     */
    build?: {
      context: string;
      dockerfile?: string;
      args?: {
        [k: string]: string | undefined;
      };
    };
    /**
     * A server implemented by mcpbox
     */
    builtin?: "code-runner";
    /**
     * Replaces the image's entrypoint
     */
    command?: string[];
    args?: string[];
    /**
     * Environment variables (not secret)
     */
    env?: {
      [k: string]: string | undefined;
    };
    /**
     * Resolved when serving; never written anywhere
     */
    secrets?: {
      [k: string]:
        | {
            /**
             * Host environment variable to read when serving
             */
            env: string;
          }
        | {
            /**
             * File to read when serving, relative to the config
             */
            file: string;
          }
        | undefined;
    };
    /**
     * code-runner: languages offered
     *
     * @minItems 1
     */
    languages?: ["python" | "node" | "bash", ...("python" | "node" | "bash")[]];
    /**
     * code-runner: cap on stdout and stderr
     */
    maxOutputBytes?: number;
    /**
     * code-runner: warm containers per language, or { warm, maxConcurrent, maxQueued }
     */
    pool?:
      | number
      | {
          /**
           * warm containers per language, started ahead (default 0)
           */
          warm?: number;
          /**
           * runs at once (default 4); later ones wait in a queue
           */
          maxConcurrent?: number;
          /**
           * runs waiting at most (default 16); more are refused
           */
          maxQueued?: number;
        };
    mounts?: Mount[];
    /**
     * "none" (default), "bridge", { allow: ["api.example.com", "db.internal:5432"] } (egress through mcpbox's proxy), or { network: "<docker network name>" }
     */
    network?:
      | "none"
      | "bridge"
      | "host"
      | `container:${string}`
      | {
          /**
           * A Docker network name
           */
          network: string;
        }
      | {
          /**
           * Egress only to these, through mcpbox's proxy: "host" (ports 443, 80), "host:port", "*.domain", "ip/cidr:port"; "*" needs dangerous.allowAnyEgress
           *
           * @minItems 1
           */
          allow: [string, ...string[]];
        };
    limits?: Limits;
    /**
     * numeric uid[:gid] (default "1000:1000"); user names are refused (the image says what they mean); root needs dangerous.allowRoot
     */
    user?: string | number;
    readOnlyRoot?: boolean;
    tools?: {
      /**
       * Items: A glob pattern on the server's own tool names, e.g. delete_*
       */
      allow?: string[];
      /**
       * Items: A glob pattern on the server's own tool names, e.g. delete_*
       */
      deny?: string[];
    };
    /**
     * Tools that need a person's approval per call
     *
     * Items: A glob pattern on the server's own tool names, e.g. delete_*
     */
    approve?: string[];
    timeouts?: {
      startupMs?: number;
      callMs?: number;
      /**
       * code-runner: wall-clock limit of one run
       */
      runMs?: number;
    };
    /**
     * Name prefix in the gateway (default: the server's name); false for none
     */
    prefix?: string | false;
    startup?: "eager" | "lazy";
    restart?: "on-failure" | "never";
    /**
     * Extra tool argument names that hold paths and must stay inside the mount targets
     */
    pathArguments?: string[];
    clientRequests?: ClientRequests;
    /**
     * "runc" (default: the engine's own runtime) or "gvisor" (the engine's runsc, a user-space kernel between the server and the host's)
     */
    runtime?: "runc" | "gvisor";
    /**
     * Explicit opt-ins for what validation refuses otherwise
     */
    dangerous?: {
      allowRoot?: boolean;
      /**
       * Allow network "host" and another container's network ("container:<id>")
       */
      allowHostNetwork?: boolean;
      allowDockerSocket?: boolean;
      allowSensitiveMounts?: boolean;
      /**
       * Allow a writable mount of a folder holding the config, a module it imports, $MCPBOX_HOME or a client's config
       */
      allowWritableConfig?: boolean;
      /**
       * Allow network: { allow: ["*"] } (any public host; private addresses still need their own entry)
       */
      allowAnyEgress?: boolean;
    };
  }

  /** What sandbox.config.ts exports: the config, a promise of it, or a function returning either. */
  export type UserConfigExport = UserConfig | Promise<UserConfig> | (() => UserConfig | Promise<UserConfig>);

  /** Returns its argument: it is there so the editor checks the config against the schema. */
  export function defineConfig(config: UserConfigExport): UserConfigExport;
}
