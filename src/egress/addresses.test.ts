import { describe, expect, it } from "vitest";
import { canonicalAddress, forbiddenReason, parseCidr } from "./addresses.ts";

describe("forbiddenReason", () => {
  it.each([
    "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.254", "192.168.1.1", "169.254.169.254",
    "100.64.0.1", "100.100.100.200", "0.0.0.0", "224.0.0.1", "255.255.255.255", "198.18.0.1",
    "::1", "::", "fe80::1", "fd00:ec2::254", "fc00::5", "ff02::1", "::ffff:127.0.0.1", "::ffff:a00:1", "::ffff:169.254.169.254",
    "64:ff9b::a00:1", "2002:a00:1::", "::127.0.0.1", "::ffff:0:a00:1", "::ffff:0:10.0.0.1",
  ])("refuses %s behind a name", (a) => {
    expect(forbiddenReason(a)).toBeTypeOf("string");
  });

  it.each(["8.8.8.8", "140.82.112.3", "172.32.0.1", "100.128.0.1", "203.0.113.10", "2606:4700::1111"])("lets public %s through", (a) => {
    expect(forbiddenReason(a)).toBeUndefined();
  });

  it("refuses the proxy network's gateway even when it looks public", () => {
    expect(forbiddenReason("203.0.113.1", ["203.0.113.1"])).toMatch(/gateway/);
    expect(forbiddenReason("::ffff:203.0.113.1", ["203.0.113.1"])).toMatch(/gateway/);
  });

  it("says an unparsable address is not one", () => {
    expect(forbiddenReason("example.com")).toBe("not an IP address");
  });
});

describe("canonicalAddress and parseCidr", () => {
  it("unwraps IPv4-mapped IPv6 in both notations", () => {
    expect(canonicalAddress("::ffff:10.0.0.1")).toEqual({ address: "10.0.0.1", family: "ipv4" });
    expect(canonicalAddress("0:0:0:0:0:ffff:a00:1")).toEqual({ address: "10.0.0.1", family: "ipv4" });
    expect(canonicalAddress("nope")).toBeUndefined();
  });

  it("matches ranges within their family, mapped forms included", () => {
    const c = parseCidr("10.0.0.0/8")!;
    expect(c.contains("10.200.0.1")).toBe(true);
    expect(c.contains("::ffff:10.0.0.9")).toBe(true);
    expect(c.contains("11.0.0.1")).toBe(false);
    expect(parseCidr("fd00::/64")!.contains("fd00::5")).toBe(true);
    expect(parseCidr("10.0.0.5")!.text).toBe("10.0.0.5/32");
    for (const bad of ["10.0.0.0/33", "10.0.0/8", "fd00::/129", "10.0.0.0/8/1", "10.0.0.0/x"]) expect(parseCidr(bad)).toBeUndefined();
  });
});
