/// <reference path="./.mcpbox/types/mcpbox.d.ts" />
// mcpbox sandbox configuration: every MCP server below runs in its own hardened Docker container
// (no network, read-only root, non-root user, no capabilities, CPU/memory/pids limits) unless you say otherwise.
// Check it with `mcpbox validate`; serve it to your MCP client with `mcpbox config claude-desktop --write`.
import { defineConfig } from "mcpbox";

export default defineConfig({
  // Policy applied under every server; each server can override any of it.
  defaults: {
    limits: { memory: "512m", cpus: 1, pids: 256 },
  },

  // Behind a proxy that re-signs TLS (corporate networks), image builds need its CA to reach the npm or Python
  // registry; `mcpbox doctor` tells you. The machine's own bundle usually holds it:
  // build: { caCerts: "/etc/ssl/certs/ca-certificates.crt" },

  servers: {
    // The reference filesystem server, built from its npm package into a minimal non-root image.
    // It sees only ./workspace, mounted read-only at /workspace.
    files: {
      template: "node",
      package: "@modelcontextprotocol/server-filesystem@2026.8.31",
      args: ["/workspace"],
      mounts: [{ source: "./workspace", target: "/workspace" }],
    },

    // A prebuilt image that needs the network and a token. The token is read from your environment when
    // serving and never written anywhere:
    // github: {
    //   image: "ghcr.io/github/github-mcp-server:v1.0.0",
    //   network: "bridge",
    //   secrets: { GITHUB_PERSONAL_ACCESS_TOKEN: { env: "GITHUB_TOKEN" } },
    //   tools: { deny: ["delete_*"] },
    //   approve: ["create_*"],
    // },
  },
});
