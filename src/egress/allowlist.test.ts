import { describe, expect, it } from "vitest";
import { addressNamed, nameAllowed, parseAllowlist, parseEntry, tcpForwards } from "./allowlist.ts";

const rulesOf = (...entries: string[]) => {
  const { rules, errors } = parseAllowlist(entries);
  expect(errors).toEqual([]);
  return rules;
};

describe("parseEntry", () => {
  it("reads every form of SPEC 2.2", () => {
    expect(parseEntry("API.GitHub.com.")).toMatchObject({ ok: true, rule: { kind: "host", host: "api.github.com", ports: [443, 80] } });
    expect(parseEntry("db.internal:5432")).toMatchObject({ ok: true, rule: { kind: "host", host: "db.internal", ports: [5432] } });
    expect(parseEntry("*.example.com")).toMatchObject({ ok: true, rule: { kind: "suffix", suffix: "example.com", ports: [443, 80] } });
    expect(parseEntry("10.0.0.5/32:443")).toMatchObject({ ok: true, rule: { kind: "address", cidr: "10.0.0.5/32", port: 443 } });
    expect(parseEntry("10.0.0.5:443")).toMatchObject({ ok: true, rule: { kind: "address", cidr: "10.0.0.5/32", port: 443 } });
    expect(parseEntry("[fd00::/64]:8443")).toMatchObject({ ok: true, rule: { kind: "address", cidr: "fd00::/64", family: "ipv6" } });
    expect(parseEntry("*")).toMatchObject({ ok: true, rule: { kind: "any" } });
  });

  it.each([
    ["", /empty/],
    ["https://api.github.com/repos", /is a URL/],
    ["api.github.com/path", /not a host/],
    ["user@host", /not a host/],
    ["host:0", /not a port/],
    ["host:65536", /not a port/],
    ["host:http", /not a port/],
    ["10.0.0.5", /needs a port/],
    ["10.0.0.0/8", /needs a port/],
    ["fd00::5", /needs a port/],
    ["10.0.0.256:443", /not an IP address/],
    ["10.0.0.0/40:443", /not an IP address/],
    ["api.*.com", /wildcard/],
    ["*.", /not a domain/],
    ["-bad.example.com", /not a host name/],
    ["a b", /not a host/],
    ["1.2.3", /not an IP address/],
  ])("refuses %j with a clear message", (entry, message) => {
    const parsed = parseEntry(entry);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(message);
  });

  it("refuses an international name written in Unicode, pointing at its xn-- form (what the proxy is asked for)", () => {
    expect(parseEntry("bücher.example")).toMatchObject({ ok: false, message: /not a host name in ASCII/, hint: /xn--/ });
    expect(parseEntry("xn--bcher-kva.example")).toMatchObject({ ok: true, rule: { kind: "host", host: "xn--bcher-kva.example" } });
  });

  it("reports each bad entry with its index", () => {
    const { rules, errors } = parseAllowlist(["good.example", "bad/", "also:bad"]);
    expect(rules).toHaveLength(1);
    expect(errors.map((e) => e.index)).toEqual([1, 2]);
  });
});

describe("matching", () => {
  const rules = rulesOf("api.github.com", "db.internal:5432", "*.example.com", "10.0.0.5/32:5432");

  it("a host: its ports 443 and 80 only", () => {
    expect(nameAllowed(rules, "api.github.com", 443)).toBeDefined();
    expect(nameAllowed(rules, "api.github.com", 80)).toBeDefined();
    expect(nameAllowed(rules, "api.github.com", 22)).toBeUndefined();
    expect(nameAllowed(rules, "evil.github.com", 443)).toBeUndefined();
    expect(nameAllowed(rules, "api.github.com.evil.net", 443)).toBeUndefined();
  });

  it("host:port: that port only", () => {
    expect(nameAllowed(rules, "db.internal", 5432)).toBeDefined();
    expect(nameAllowed(rules, "db.internal", 443)).toBeUndefined();
  });

  it("*.domain: subdomains, not the domain itself nor look-alikes", () => {
    expect(nameAllowed(rules, "a.example.com", 443)).toBeDefined();
    expect(nameAllowed(rules, "a.b.example.com", 80)).toBeDefined();
    expect(nameAllowed(rules, "example.com", 443)).toBeUndefined();
    expect(nameAllowed(rules, "badexample.com", 443)).toBeUndefined();
  });

  it("address entries name an address and port", () => {
    expect(addressNamed(rules, "10.0.0.5", 5432)).toBeDefined();
    expect(addressNamed(rules, "::ffff:10.0.0.5", 5432)).toBeDefined();
    expect(addressNamed(rules, "10.0.0.5", 443)).toBeUndefined();
    expect(addressNamed(rules, "10.0.0.6", 5432)).toBeUndefined();
  });

  it("host:port entries become TCP forwards, once each", () => {
    expect(tcpForwards(rulesOf("a.example", "db:5432", "db:5432", "db:6379"))).toEqual([
      { host: "db", port: 5432 },
      { host: "db", port: 6379 },
    ]);
  });
});
