// The example the quickstart runs (`npm run main`): two reference MCP servers, each in its own hardened container.
// `npx tsc --noEmit` checks it against the real schema through the "mcpbox" types of this repository.
import { defineConfig } from "mcpbox";

export default defineConfig({
  defaults: { limits: { memory: "512m", cpus: 1, pids: 256 } },
  // This machine reaches the npm registry through a TLS proxy with its own CA: hand the host bundle to npm in builds.
  build: { caCerts: "/etc/ssl/certs/ca-certificates.crt" },
  servers: {
    files: {
      template: "node",
      package: "@modelcontextprotocol/server-filesystem@2026.8.31",
      args: ["/workspace"],
      mounts: [{ source: "./example/workspace", target: "/workspace" }],
      tools: { deny: ["write_*", "edit_*", "move_*", "create_*"] },
    },
    memory: {
      template: "node",
      package: "@modelcontextprotocol/server-memory@2026.8.31",
      env: { MEMORY_FILE_PATH: "/tmp/memory.jsonl" },
    },
  },
});
