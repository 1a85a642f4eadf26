import { describe, expect, it } from "vitest";
import { toolPolicy } from "./guards.ts";

describe("toolPolicy", () => {
  it("allows everything by default", () => {
    const p = toolPolicy({ tools: { allow: undefined, deny: [] }, approve: [] });
    expect(p.visible("anything")).toBe(true);
    expect(p.needsApproval("anything")).toBe(false);
  });
  it("applies allow, then deny, with globs", () => {
    const p = toolPolicy({ tools: { allow: ["read_*", "list_*"], deny: ["read_secret*"] }, approve: ["list_*"] });
    expect(p.visible("read_file")).toBe(true);
    expect(p.visible("read_secret_file")).toBe(false);
    expect(p.visible("write_file")).toBe(false);
    expect(p.needsApproval("list_directory")).toBe(true);
    expect(p.needsApproval("read_file")).toBe(false);
  });
});
