/**
 * Servers as host processes instead of containers: for tests of the gateway's MCP logic without Docker, and for
 * development. Never used by `mcpbox serve`.
 */
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ResolvedServer } from "../config/resolve.ts";
import type { ExitInfo, LaunchedServer, Launcher } from "./launcher.ts";

export type HostCommand = (server: ResolvedServer) => { command: string; args: string[]; env?: Record<string, string> };

export function hostLauncher(commandOf: HostCommand): Launcher {
  const running = new Set<LaunchedServer>();
  return {
    async launch(server) {
      const { command, args, env } = commandOf(server);
      const transport = new StdioClientTransport({ command, args, env: { ...process.env, ...env } as Record<string, string>, stderr: "pipe" });
      const listeners = new Set<(line: string) => void>();
      let buffered = "";
      transport.stderr?.on("data", (d: Buffer) => {
        buffered += d.toString();
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        for (const line of lines) for (const l of listeners) l(line);
      });
      let exit!: (info: ExitInfo) => void;
      const exited = new Promise<ExitInfo>((resolve) => (exit = resolve));
      transport.onclose = () => exit({ exitCode: 0, oomKilled: false });
      const launched: LaunchedServer = {
        get id() {
          return String(transport.pid ?? "host");
        },
        transport,
        onStderr(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        exited,
        async stop() {
          running.delete(launched);
          await transport.close();
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
