import { describe, expect, it } from "vitest";
import { LABEL, containerLabels, labelFilter, ownerPidOf } from "./labels.ts";

describe("labels", () => {
  it("carries the five labels of SPEC 4.6 and the owner's host", () => {
    expect(containerLabels({ session: "s", server: "files", ownerPid: 12, configHash: "h", ownerHost: "box" })).toEqual({
      "mcpbox.managed": "true",
      "mcpbox.session": "s",
      "mcpbox.server": "files",
      "mcpbox.owner-pid": "12",
      "mcpbox.config-hash": "h",
      "mcpbox.owner-host": "box",
    });
  });

  it("reads the owner pid only when it is a positive integer", () => {
    expect(ownerPidOf({ [LABEL.ownerPid]: "4242" })).toBe(4242);
    for (const bad of ["", "0", "-1", "12abc", "1.5"]) expect(ownerPidOf({ [LABEL.ownerPid]: bad })).toBeUndefined();
    expect(ownerPidOf({})).toBeUndefined();
    expect(ownerPidOf(undefined)).toBeUndefined();
  });

  it("builds the engine's label filter", () => {
    expect(JSON.parse(labelFilter({ a: "1", b: "x" }))).toEqual({ label: ["a=1", "b=x"] });
  });
});
