import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContainer, createContainerRaw } from "./create.ts";

/** A stand-in engine on a unix socket that records each request's line and body and answers a create. */
let dir: string;
let server: http.Server;
const seen: { url: string; body: string }[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-create-"));
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      seen.push({ url: req.url ?? "", body });
      res.writeHead(201, { "Content-Type": "application/json" }).end(JSON.stringify({ Id: "c0ffee", Warnings: ["no swap limit"] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(path.join(dir, "engine.sock"), resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

const SECRET = "sk_create_Zq9f3TmE8rVb";
const options = { name: "mcpbox-abc-s0", Image: "mcp/x:1", Env: [`API_TOKEN=${SECRET}`], Cmd: ["serve"], Labels: { "mcpbox.server": "s0" } };

describe("a container's create request", () => {
  it("holds the options in its body and only the name in its URL (no secret in the request line)", async () => {
    const docker = new Docker({ socketPath: path.join(dir, "engine.sock") });
    seen.length = 0;
    const c = await createContainer(docker, options);
    expect(c.id).toBe("c0ffee");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe("/containers/create?name=mcpbox-abc-s0");
    const { name: _name, ...body } = options;
    expect(JSON.parse(seen[0]!.body)).toEqual(body);
  });

  it("keeps the engine's warnings, and sends no query without a name", async () => {
    const docker = new Docker({ socketPath: path.join(dir, "engine.sock") });
    seen.length = 0;
    const { name: _name, ...unnamed } = options;
    expect(await createContainerRaw(docker, unnamed)).toEqual({ Id: "c0ffee", Warnings: ["no swap limit"] });
    expect(seen[0]!.url).toBe("/containers/create?");
  });

  it("is needed: dockerode's own createContainer puts every option, the secret too, in the URL", async () => {
    const docker = new Docker({ socketPath: path.join(dir, "engine.sock") });
    seen.length = 0;
    await docker.createContainer(options);
    expect(decodeURIComponent(seen[0]!.url)).toContain(SECRET);
  });
});

describe("mcpbox's code", () => {
  it("creates every container through create.ts (dockerode's createContainer would put the options in the URL)", () => {
    const src = path.resolve(import.meta.dirname, "..");
    const files = (fs.readdirSync(src, { recursive: true }) as string[]).filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f));
    const uses = files.filter((f) => /\.createContainer\(/.test(fs.readFileSync(path.join(src, f), "utf8")));
    expect(files.length).toBeGreaterThan(100);
    expect(uses).toEqual([]);
  });
});
