import { describe, expect, it } from "vitest";
import { BuildLog, parseStep, TAIL_LINES } from "./steps.ts";

describe("BuildLog", () => {
  it("follows steps, ids and the current step's output", () => {
    const log = new BuildLog();
    expect(log.feed({ stream: "Step 1/3 : FROM node:24 AS builder\n" })).toBe(true);
    log.feed({ stream: " ---> 0123456789ab\n" });
    log.feed({ stream: "Step 2/3 : RUN npm install x\n" });
    log.feed({ stream: " ---> Running in ffffffffffff\n" });
    log.feed({ stream: "npm error 404 Not Found" });
    log.feed({ stream: " - GET x\n" });
    log.feed({ errorDetail: { message: "The command returned a non-zero code: 1" }, error: "The command returned a non-zero code: 1" });
    expect(log.step).toEqual({ n: 2, total: 3, text: "RUN npm install x" });
    expect(log.tail).toEqual(["npm error 404 Not Found - GET x"]);
    expect(log.imageIds).toEqual(["0123456789ab"]);
    expect(log.error).toBe("The command returned a non-zero code: 1");
  });

  it("keeps only the last lines of a step", () => {
    const log = new BuildLog();
    log.feed({ stream: "Step 1/1 : RUN x\n" });
    for (let i = 0; i < 50; i++) log.feed({ stream: `line ${i}\n` });
    expect(log.tail).toHaveLength(TAIL_LINES);
    expect(log.tail.at(-1)).toBe("line 49");
  });

  it("records the final image from aux and 'Successfully built'", () => {
    const log = new BuildLog();
    log.feed({ aux: { ID: "sha256:abcdefabcdef0123" } });
    log.feed({ stream: "Successfully built abcdefabcdef\n" });
    expect(log.imageIds).toEqual(["abcdefabcdef"]);
  });
});

describe("parseStep", () => {
  it("reads the classic builder's step lines", () => {
    expect(parseStep("Step 10/12 : COPY --from=builder /rootfs/ /")).toEqual({ n: 10, total: 12, text: "COPY --from=builder /rootfs/ /" });
    expect(parseStep("npm notice")).toBeUndefined();
  });
});

describe("colour in build output", () => {
  it("is removed, so the tail reads as plain text", () => {
    const log = new BuildLog();
    log.feed({ stream: "Step 1/1 : RUN npm i\n" });
    log.feed({ stream: "\u001b[91mnpm error code E404\n\u001b[0m\u001b[91mRemoving intermediate container abc\n" });
    expect(log.tail).toEqual(["npm error code E404"]);
  });
});
