import { expect, it } from "vitest";
import { PullProgress } from "./pull-progress.ts";

it("says one line per finished layer and the closing status, nothing per chunk, terminal-safe", () => {
  const p = new PullProgress();
  const lines = [
    { status: "Pulling from mcpbox-test/echo", id: "1" },
    { status: "Pulling fs layer", id: "aaa" },
    { status: "Already exists", id: "bbb" },
    { status: "Downloading", id: "aaa", progressDetail: { current: 1, total: 9 } },
    { status: "Downloading", id: "aaa", progressDetail: { current: 5, total: 9 } },
    { status: "Pull complete", id: "aaa" },
    { status: "Pull complete", id: "aaa" },
    { status: "Digest: sha256:00" },
    { status: "Status: Downloaded newer image for x\u001b[2J" },
  ].flatMap((m) => p.feed(m) ?? []);
  expect(lines).toEqual(["layer bbb already present (1/2)", "layer aaa pulled (2/2)", "Digest: sha256:00", "Status: Downloaded newer image for x"]);
});
