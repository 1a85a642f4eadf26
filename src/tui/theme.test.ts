import { describe, expect, it } from "vitest";
import { theme } from "./theme.ts";

describe("theme", () => {
  it("colours states and outcomes", () => {
    const t = theme({});
    expect([t.state("running"), t.state("failed"), t.outcome("ok"), t.outcome("denied")]).toEqual(["green", "red", "green", "yellow"]);
  });
  it("has no colour at all with NO_COLOR", () => {
    const t = theme({ NO_COLOR: "1" });
    expect([t.state("running"), t.state("gone"), t.outcome("error"), t.colour("cyan")]).toEqual([undefined, undefined, undefined, undefined]);
  });
});
