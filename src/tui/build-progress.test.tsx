import React from "react";
import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { McpboxError } from "../errors.ts";
import { BuildProgress, BuildStore } from "./build-progress.tsx";

const result = (server: string, cached: boolean) => ({
  server,
  image: `mcpbox/${server}`,
  tag: `mcpbox/${server}:0123456789ab`,
  size: 47_600_000,
  user: "1000:1000",
  seconds: 1,
  cached,
});

describe("BuildProgress", () => {
  it("shows one row per server with its state, step and elapsed seconds", () => {
    const store = new BuildStore(["files", "echo", "bad"]);
    store.apply({ type: "checking", server: "files" }, 1_000);
    store.apply({ type: "building", server: "files", tag: "mcpbox/files:0123456789ab" }, 1_000);
    store.apply({ type: "step", server: "files", step: { n: 3, total: 9, text: "RUN npm install" } }, 2_000);
    store.apply({ type: "checking", server: "echo" }, 1_000);
    store.apply({ type: "cached", server: "echo", result: result("echo", true) }, 1_200);
    store.apply({ type: "checking", server: "bad" }, 1_000);
    store.apply({ type: "failed", server: "bad", error: new McpboxError("failed", "building bad failed at step 5/17") }, 4_000);
    const { lastFrame, unmount } = render(<BuildProgress store={store} now={() => 13_500} />);
    const lines = lastFrame()!.split("\n");
    expect(lines[0]).toMatch(/^files\s+building\s+Step 3\/9\s+12s mcpbox\/files:0123456789ab/);
    expect(lines[1]).toMatch(/^echo\s+cached\s+0s mcpbox\/echo:0123456789ab/);
    expect(lines[2]).toMatch(/^bad\s+failed\s+3s building bad failed at step 5\/17/);
    unmount();
  });
  it("shows a failure that quotes a hostile build log without its escape sequences", () => {
    const store = new BuildStore(["bad"]);
    store.apply({ type: "checking", server: "bad" }, 1_000);
    const error = new McpboxError("failed", "building bad failed at step 2/2: \x1b]0;pwned\x07\x1b[2Jevil\u009b5m\rX");
    store.apply({ type: "failed", server: "bad", error }, 2_000);
    expect(store.rows[0]!.note).toBe("building bad failed at step 2/2: evil\\rX");
    const { lastFrame, unmount } = render(<BuildProgress store={store} now={() => 2_000} />);
    expect(lastFrame()).toContain("evil");
    expect(lastFrame()).not.toMatch(/\x1b\]|\x07|\u009b/);
    unmount();
  });
  it("shows image servers pulling (layers done), pulled and present", () => {
    const store = new BuildStore(["gh", "local"]);
    store.apply({ type: "pulling", server: "gh", image: "ghcr.io/o/gh:1" }, 1_000);
    store.apply({ type: "pull-progress", server: "gh", line: "pulling ghcr.io/o/gh:1" }, 1_000);
    store.apply({ type: "pull-progress", server: "gh", line: "layer 3f2a pulled (2/5)" }, 2_000);
    store.apply({ type: "pulling", server: "local", image: "a/b:1" }, 1_000);
    store.apply({ type: "pulled", server: "local", result: { server: "local", image: "a/b:1", pulled: false, seconds: 0 } }, 1_100);
    const { lastFrame, unmount } = render(<BuildProgress store={store} now={() => 4_000} />);
    const lines = lastFrame()!.split("\n");
    expect(lines[0]).toMatch(/^gh\s+pulling\s+layers 2\/5\s+3s ghcr\.io\/o\/gh:1/);
    expect(lines[1]).toMatch(/^local\s+present\s+0s a\/b:1/);
    store.apply({ type: "pulled", server: "gh", result: { server: "gh", image: "ghcr.io/o/gh:1", pulled: true, seconds: 3 } }, 4_000);
    expect(store.rows[0]).toMatchObject({ state: "pulled", step: "" });
    unmount();
  });
});
