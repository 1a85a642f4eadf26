import { describe, expect, it } from "vitest";
import { DOCTOR_LABEL, hardenedProbeOptions } from "./probe.ts";

describe("hardenedProbeOptions", () => {
  it("is the default run policy, labelled as doctor's own and named so it cannot collide", () => {
    const o = hardenedProbeOptions("node:24-bookworm-slim", 4242);
    expect(o.Image).toBe("node:24-bookworm-slim");
    expect(o.name).toMatch(/^mcpbox-doctor-4242-[0-9a-f]{6}$/);
    expect(o.Labels).toEqual({ [DOCTOR_LABEL]: "true", "mcpbox.owner-pid": "4242" });
    expect(o.HostConfig).toMatchObject({
      ReadonlyRootfs: true,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges:true"],
      PidsLimit: 256,
      Memory: 512 * 1024 ** 2,
      MemorySwap: 512 * 1024 ** 2,
      NetworkMode: "none",
    });
    expect(o.User).toBe("1000:1000");
  });
});
