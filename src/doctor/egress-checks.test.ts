import { describe, expect, it } from "vitest";
import { egressEngineCheck, egressImageCheck } from "./egress-checks.ts";

describe("doctor's egress checks", () => {
  it("are not needed without an allowlisted server", () => {
    expect(egressEngineCheck({ servers: [] })).toEqual({ name: "egress confinement", status: "ok", message: "not needed: no server has a network allowlist" });
    expect(egressImageCheck({ servers: [] })).toMatchObject({ name: "egress image", status: "ok", message: expect.stringContaining("not needed") });
  });

  it("pass when the engine accepted both and the image was made", () => {
    expect(egressEngineCheck({ servers: ["gh"], probe: { image: "node:24" } })).toMatchObject({ status: "ok", message: expect.stringContaining("container:<id>") });
    expect(egressImageCheck({ servers: ["gh"], image: "mcpbox/egress:abc" })).toEqual({ name: "egress image", status: "ok", message: "mcpbox/egress:abc for gh" });
  });

  it("fail with a fix for each refusal", () => {
    const volume = egressEngineCheck({ servers: ["gh"], probe: { image: "i", volume: "no such driver" } });
    expect(volume).toMatchObject({ status: "fail", message: expect.stringContaining("named volume"), fix: expect.stringContaining("Docker 19.03+") });
    const mode = egressEngineCheck({ servers: ["gh", "db"], probe: { image: "i", containerMode: "invalid mode" } });
    expect(mode).toMatchObject({ status: "fail", message: expect.stringMatching(/container:<id>.*for gh, db: invalid mode/), fix: expect.stringContaining("--network container:<id>") });
    expect(egressImageCheck({ servers: ["gh"], error: { message: "not built", hint: "run `npm run build`" } })).toMatchObject({ status: "fail", fix: "run `npm run build`" });
    expect(egressImageCheck({ servers: ["gh"], error: { message: "disk full" } }).fix).toContain("mcpbox doctor");
  });

  it("warn when there was no image to probe with", () => {
    expect(egressEngineCheck({ servers: ["gh"] })).toMatchObject({ status: "warn", fix: expect.any(String) });
  });
});
