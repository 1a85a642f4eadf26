// The main job (`npm run main`, after scripts/setup.sh main and `npm run build`): the example sandbox.config.ts end to end with the built binary.
// doctor → validate → build → tools → a real MCP client (the SDK's) spawning `dist/mcpbox serve`, reading the mounted
// workspace, being refused outside it, and using the memory server. Exits non-zero on any failure.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = path.join(root, "dist", "mcpbox");
const config = path.join(root, "sandbox.config.ts");
const step = (title) => console.log(`\n== ${new Date().toISOString().slice(11, 19)} ${title}`);

function mcpbox(...args) {
  console.log(`$ mcpbox ${args.join(" ")}`);
  const r = spawnSync(bin, args, { cwd: root, stdio: "inherit" });
  if (r.status !== 0) throw new Error(`mcpbox ${args.join(" ")} exited with ${r.status}`);
}

const text = (result) => result.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");

async function clientSession() {
  const transport = new StdioClientTransport({ command: bin, args: ["serve", "-c", config], stderr: "inherit" });
  const client = new Client({ name: "mcpbox-main", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    console.log(`tools offered through one stdio connection: ${tools.map((t) => t.name).join(", ")}`);
    const listing = await client.callTool({ name: "files__list_directory", arguments: { path: "/workspace" } });
    console.log(`files__list_directory /workspace →\n${text(listing)}`);
    if (listing.isError) throw new Error("listing the mounted workspace failed");
    const escape = await client.callTool({ name: "files__read_text_file", arguments: { path: "/workspace/../etc/passwd" } });
    console.log(`files__read_text_file /workspace/../etc/passwd → ${escape.isError ? "refused" : "ALLOWED"}: ${text(escape)}`);
    if (!escape.isError) throw new Error("a path outside the mount was not refused");
    const hidden = tools.some((t) => t.name === "files__write_file");
    console.log(`files__write_file hidden by tools.deny: ${!hidden}`);
    if (hidden) throw new Error("a denied tool is listed");
    const memory = await client.callTool({
      name: "memory__create_entities",
      arguments: { entities: [{ name: "mcpbox", entityType: "project", observations: ["runs MCP servers in containers"] }] },
    });
    console.log(`memory__create_entities → ${memory.isError ? "error" : "ok"}`);
    if (memory.isError) throw new Error(text(memory));
  } finally {
    await client.close();
  }
}

try {
  step("doctor");
  mcpbox("doctor");
  step("validate");
  mcpbox("validate");
  step("build (content-addressed: a second run is a no-op)");
  mcpbox("build");
  mcpbox("build");
  step("tools");
  mcpbox("tools");
  step("serve, with the MCP SDK client");
  await clientSession();
  step("done: the example ran end to end");
} catch (e) {
  console.error(`\nmain job failed: ${e instanceof Error ? e.message : e}`);
  process.exit(1);
}
