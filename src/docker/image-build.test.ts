import { PassThrough } from "node:stream";
import type Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { buildImage, type StreamMessage } from "./image-build.ts";

/** A stand-in engine whose build answers with the given JSON lines and whose images are known by short id. */
function fakeEngine(lines: StreamMessage[], ids: Record<string, string>): Docker {
  return {
    async buildImage() {
      const out = new PassThrough();
      setImmediate(() => out.end(lines.map((l) => JSON.stringify(l)).join("\n") + "\n"));
      return out;
    },
    getImage: (ref: string) => ({
      inspect: async () => {
        const id = Object.keys(ids).find((full) => full.startsWith(ref));
        if (!id) throw Object.assign(new Error("no such image"), { statusCode: 404 });
        return { Id: `sha256:${id}` };
      },
    }),
  } as unknown as Docker;
}

const request = { files: [], dockerfile: "Dockerfile", tag: "t:1", labels: {}, buildArgs: {}, noCache: false, pull: false };
const STAGE = "7553ac189ea03115d6b044961dd6b04e4392b9853d033aa9bc3b2ae4dbdce1ac";
const FINAL = "e10a9d3101f0b4fa9900fe4fd0fe8634fbf4df19ab619b95d44edc1a29592d51";

describe("buildImage", () => {
  it("says Podman's build lines as the classic builder does, with full layer ids (so a builder stage can be found and removed)", async () => {
    // recorded from Podman 4.3.1's Docker API (buildah 1.28.2)
    const podman: StreamMessage[] = [
      { stream: "[1/2] STEP 1/3: FROM node:24-bookworm-slim AS builder\n" },
      { stream: "[1/2] STEP 3/3: RUN npm install\n" },
      { stream: `--> Using cache ${STAGE}\n` },
      { stream: "--> 7553ac189ea\n" },
      { stream: "[2/2] STEP 1/2: FROM scratch\n" },
      { stream: "[2/2] COMMIT docker.io/mcpbox/x:1\n" },
      { stream: "--> e10a9d3101f\n" },
      { aux: { ID: `sha256:${FINAL}` } },
      { stream: "Successfully built e10a9d3101f0\n" },
    ];
    const seen: StreamMessage[] = [];
    await buildImage(fakeEngine(podman, { [STAGE]: "", [FINAL]: "" }), request, (m) => void seen.push(m));
    expect(seen.map((m) => m.stream ?? m.aux)).toEqual([
      "Step 1/3 : FROM node:24-bookworm-slim AS builder\n",
      "Step 3/3 : RUN npm install\n",
      " ---> Using cache\n",
      " ---> 7553ac189ea0\n",
      "Step 1/2 : FROM scratch\n",
      "[2/2] COMMIT docker.io/mcpbox/x:1\n",
      " ---> e10a9d3101f0\n",
      { ID: `sha256:${FINAL}` },
      "Successfully built e10a9d3101f0\n",
    ]);
  });

  it("passes Docker's lines on unchanged, and a Podman id the engine does not know as it came", async () => {
    const docker: StreamMessage[] = [{ stream: "Step 1/2 : FROM x\n" }, { stream: " ---> 4db901add194\n" }, { stream: "--> abcdefabcde\n" }, { error: "boom", errorDetail: { message: "boom" } }];
    const seen: StreamMessage[] = [];
    await buildImage(fakeEngine(docker, {}), request, (m) => void seen.push(m));
    expect(seen).toEqual(docker);
  });
});
