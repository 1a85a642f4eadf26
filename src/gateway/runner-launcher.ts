/**
 * The code runner (src/runner) as a gateway upstream: the in-process server behind an InMemoryTransport, shaped like a launched
 * container (LaunchedServer), so the gateway's Upstream connects its Client to it like to any other server.
 */
import { InMemoryTransport } from "@modelcontextprotocol/server";
import type { ResolvedConfig, ResolvedServer } from "../config/resolve.ts";
import type { Docker } from "../docker/engine.ts";
import { ensureRunnerImage } from "../runner/image.ts";
import { createCodeRunnerServer, type CodeRunnerDeps } from "../runner/server.ts";
import type { AuditRecord, AuditSink } from "./audit.ts";
import type { LaunchedServer } from "./launcher.ts";
import { auditValue, type Redact } from "./redact.ts";

/** The runner image for a config's base images (built when missing); what the launcher's image step calls. */
export function codeRunnerImage(docker: Docker, config: Pick<ResolvedConfig, "build">, log?: (line: string) => void): Promise<string> {
  return ensureRunnerImage(docker, config.build.baseImages, log);
}

export async function launchCodeRunner(server: ResolvedServer, deps: CodeRunnerDeps): Promise<LaunchedServer> {
  const mcp = createCodeRunnerServer(server, deps);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  let exit!: () => void;
  const exited = new Promise<{ exitCode: number; oomKilled: boolean }>((resolve) => {
    exit = () => resolve({ exitCode: 0, oomKilled: false });
  });
  const previous = mcp.onclose;
  mcp.onclose = () => {
    previous?.();
    exit();
  };
  await mcp.connect(serverSide);
  return {
    id: `builtin-${server.name}`,
    transport: clientSide,
    onStderr: () => () => {},
    exited,
    async stop() {
      await mcp.close(); // waits until every run container is removed
      exit();
    },
  };
}

/**
 * An audit callback writing the runner's own line per run: the exact code (secrets still redacted, nothing cut),
 * language, outcome, exit code, duration and the timeout and OOM flags. The gateway's line for the same call has
 * its arguments cut (SPEC 4.7); this one is method "run_code".
 */
export function runnerAudit(sink: AuditSink, session: string, server: string, redact: Redact = (t) => t): (entry: Record<string, unknown>) => void {
  return (entry) => {
    const { tool, language, code, files, outcome, durationMs, ...rest } = entry;
    const record: AuditRecord & Record<string, unknown> = {
      time: new Date().toISOString(),
      session,
      server,
      method: "tools/call", // the one line of this call: the gateway leaves builtin calls to this, with the exact code
      tool: String(tool),
      arguments: { language, code: redact(String(code)), files: auditValue(files, redact) }, // file names may hold one too
      outcome: outcome as AuditRecord["outcome"],
      durationMs: typeof durationMs === "number" ? durationMs : 0,
      bytes: Buffer.byteLength(String(code)),
      ...(auditValue(rest, redact) as Record<string, unknown>), // an error message may quote the arguments
    };
    sink.write(record);
  };
}
