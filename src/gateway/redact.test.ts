import { describe, expect, it } from "vitest";
import { auditValue, redactor, REDACTED } from "./redact.ts";

describe("redactor", () => {
  it("hides every occurrence of every secret", () => {
    const r = redactor(["ghp_secret123", "ghp_secret123456", "ab"]);
    expect(r("token=ghp_secret123456 and ghp_secret123")).toBe(`token=${REDACTED} and ${REDACTED}`);
    expect(r("ab is too short to hide")).toBe("ab is too short to hide");
  });
  it("is the identity without secrets", () => {
    expect(redactor([])("x")).toBe("x");
  });
});

describe("auditValue", () => {
  it("redacts nested strings and cuts long ones", () => {
    const r = redactor(["s3cr3t"]);
    const v = auditValue({ a: ["x s3cr3t"], b: { c: "y".repeat(2000) }, n: 1, z: null }, r) as Record<string, any>;
    expect(v.a[0]).toBe(`x ${REDACTED}`);
    expect(v.b.c.length).toBeLessThan(1100);
    expect(v.b.c).toContain("2000 chars");
    expect(v.n).toBe(1);
    expect(v.z).toBeNull();
  });
});
