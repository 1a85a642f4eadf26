import { describe, expect, it } from "vitest";
import { auditValue, redactor, REDACTED } from "./redact.ts";

const SECRET = "ghp_S3cr3t+Value/42==";
const r = redactor([SECRET, "hunter22", "hunter22!"]);
const b64 = (s: string) => Buffer.from(s).toString("base64");
const b64url = (s: string) => Buffer.from(s).toString("base64url");

describe("redactor", () => {
  it("hides every occurrence of every secret, longest first", () => {
    const r2 = redactor(["ghp_secret123", "ghp_secret123456", "ab"]);
    expect(r2("token=ghp_secret123456 and ghp_secret123")).toBe(`token=${REDACTED} and ${REDACTED}`);
    expect(r2("ab is too short to hide")).toBe("ab is too short to hide");
  });

  it("is the identity without secrets, and leaves other text alone", () => {
    expect(redactor([])("x")).toBe("x");
    expect(r("nothing to hide here: 100% a+b %41 aGVsbG8=")).toBe("nothing to hide here: 100% a+b %41 aGVsbG8=");
  });

  it("hides the base64 forms: standard and URL-safe, padded or not", () => {
    for (const secret of [SECRET, "hunter22", "hunter22!"]) {
      const std = b64(secret);
      const forms = [std, std.replace(/=+$/, ""), b64url(secret), std.replace(/\+/g, "-").replace(/\//g, "_")];
      for (const f of forms) expect(r(`x ${f} y`), f).toBe(`x ${REDACTED} y`);
    }
  });

  it("hides a secret embedded in longer base64 text, at each of the three byte offsets", () => {
    for (const prefix of ["", "a", "ab", "abc", "Authorization: Bearer "]) {
      for (const suffix of ["", "!", "!!", "; more"]) {
        for (const enc of [b64, b64url]) {
          const text = enc(`${prefix}${SECRET}${suffix}`);
          const out = r(text);
          expect(out, `${prefix}|${suffix}`).toContain(REDACTED);
          // what is left around the redaction is at most the few characters that mix in the neighbours' bits
          expect(out.replace(REDACTED, "").length, `${prefix}|${suffix}`).toBeLessThanOrEqual(text.length - enc(SECRET).length + 6);
          expect(Buffer.from(out.replace(REDACTED, ""), "base64").toString("latin1")).not.toContain("S3cr3t");
        }
      }
    }
  });

  it("hides hex in any case", () => {
    const hex = Buffer.from(SECRET).toString("hex");
    expect(r(`0x${hex}`)).toBe(`0x${REDACTED}`);
    expect(r(hex.toUpperCase())).toBe(REDACTED);
    expect(r(hex.replace(/[a-f]/, (c) => c.toUpperCase()))).toBe(REDACTED);
  });

  it("hides %-encoded forms, however much is encoded and in either case", () => {
    const forms = [
      encodeURIComponent(SECRET),
      encodeURI(SECRET),
      new URLSearchParams({ t: SECRET }).toString().slice(2),
      encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()), // %2f, %3d
      [...SECRET].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`).join(""),
      SECRET.replace("+", "%2B"), // only one character encoded
      encodeURIComponent(encodeURIComponent(SECRET)).replace(/%25/g, "%"), // stays a single decode away
    ];
    for (const f of forms) {
      const out = r(`https://x.test/cb?token=${f}&next=1`);
      expect(out, f).toBe(`https://x.test/cb?token=${REDACTED}&next=1`);
    }
  });

  it("hides form-encoded spaces and base64 inside a %-encoded query", () => {
    const spaced = redactor(["my secret pass"]);
    expect(spaced("p=my+secret+pass&x=1")).toBe(`p=${REDACTED}&x=1`);
    expect(r(`q=${encodeURIComponent(b64(SECRET))}`)).toBe(`q=${REDACTED}`);
  });

  it("hides JSON-escaped forms", () => {
    const quoted = redactor(['pa"ss\\word']);
    expect(quoted(JSON.stringify({ a: 'pa"ss\\word' }))).toBe(`{"a":"${REDACTED}"}`);
  });

  it("stays quick on long text", () => {
    const text = "a normal line of text, 100% plain a+b ".repeat(30_000);
    const start = performance.now();
    expect(r(text)).toBe(text);
    expect(performance.now() - start).toBeLessThan(500);
  });
});

describe("auditValue", () => {
  it("redacts nested strings and cuts long ones", () => {
    const v = auditValue({ a: ["x hunter22"], b: { c: "y".repeat(2000) }, n: 1, z: null }, r) as Record<string, any>;
    expect(v.a[0]).toBe(`x ${REDACTED}`);
    expect(v.b.c.length).toBeLessThan(1100);
    expect(v.b.c).toContain("2000 chars");
    expect(v.n).toBe(1);
    expect(v.z).toBeNull();
  });

  it("redacts keys too, keeping both values of keys hidden alike", () => {
    const v = auditValue({ [SECRET]: 1, nested: { [`k-${b64(SECRET)}`]: "v", hunter22: 2 }, hunter22: 3 }, r);
    const text = JSON.stringify(v);
    expect(text).not.toContain("S3cr3t");
    expect(text).not.toContain("hunter22");
    expect(v).toEqual({ [REDACTED]: 1, nested: { [`k-${REDACTED}`]: "v", [REDACTED]: 2 }, [`${REDACTED} (2)`]: 3 });
  });

  it("keeps a key named __proto__ as a key", () => {
    const v = auditValue(JSON.parse('{"__proto__":{"hunter22":1}}'), r) as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(["__proto__"]);
    expect(JSON.stringify(v)).toBe(`{"__proto__":{"${REDACTED}":1}}`);
  });
});

describe("multi-line secrets", () => {
  it("are redacted a line at a time, as a server's stderr arrives", () => {
    const pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n";
    const redact = redactor([pem]);
    expect(redact("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")).not.toContain("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC");
    expect(redact("line: BKcwggSjAgEAAoIBAQC7")).not.toContain("BKcwggSjAgEAAoIBAQC7");
    expect(redact("plain text")).toBe("plain text");
  });
});
