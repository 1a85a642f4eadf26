import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { socketFacts } from "./gather.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-doctor-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("socketFacts", () => {
  it("tells a remote address, a missing path, a plain file and a usable socket apart", async () => {
    expect(socketFacts("tcp://127.0.0.1:2375")).toEqual({ kind: "remote", address: "tcp://127.0.0.1:2375" });
    expect(socketFacts(`unix://${dir}/none.sock`)).toEqual({ kind: "unix", path: `${dir}/none.sock`, state: "missing" });
    fs.writeFileSync(path.join(dir, "file"), "");
    expect(socketFacts(`unix://${dir}/file`)).toMatchObject({ kind: "unix", state: "not-a-socket" });
    const sock = path.join(dir, "s.sock");
    const server = net.createServer().listen(sock);
    await new Promise((r) => server.once("listening", r));
    expect(socketFacts(`unix://${sock}`)).toEqual({ kind: "unix", path: sock, state: "ok" });
    server.close();
  });
});
