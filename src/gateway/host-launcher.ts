/**
 * Servers as host processes instead of containers: for tests of the gateway's MCP logic without Docker, and for
 * development. Never used by `mcpbox serve`. A process is spoken to over the same transport as a container's stdio.
 */
import { spawn } from "node:child_process";
import type { ResolvedServer } from "../config/resolve.ts";
import { ContainerStdioTransport } from "../docker/stdio-transport.ts";
import type { ExitInfo, LaunchedServer, Launcher } from "./launcher.ts";

export type HostCommand = (server: ResolvedServer) => { command: string; args: string[]; env?: Record<string, string> };

export function hostLauncher(commandOf: HostCommand): Launcher {
  const running = new Set<LaunchedServer>();
  return {
    async launch(server) {
      const { command, args, env } = commandOf(server);
      const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
      const transport = new ContainerStdioTransport(child.stdin, child.stdout);
      const listeners = new Set<(line: string) => void>();
      let buffered = "";
      child.stderr.on("data", (d: Buffer) => {
        buffered += d.toString();
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        for (const line of lines) for (const l of listeners) l(line);
      });
      const exited = new Promise<ExitInfo>((resolve) => {
        child.once("exit", (code) => resolve({ exitCode: code ?? 0, oomKilled: false }));
        child.once("error", () => resolve({ exitCode: -1, oomKilled: false }));
      });
      const launched: LaunchedServer = {
        id: String(child.pid ?? "host"),
        transport,
        onStderr(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        exited,
        async stop(timeoutMs = 2000) {
          running.delete(launched);
          await transport.close();
          if (child.exitCode === null && child.signalCode === null) {
            const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
            child.kill("SIGTERM");
            await exited;
            clearTimeout(timer);
          }
        },
      };
      running.add(launched);
      return launched;
    },
    async close() {
      await Promise.allSettled([...running].map((r) => r.stop()));
    },
  };
}
