/**
 * Boundary 13: the audit log never holds a secret. A server's secret is sent back in tool arguments as a caller
 * (or a model tricked by a server) might encode it: base64 (standard, URL-safe, inside a longer base64 text), hex,
 * %-encoded (encodeURIComponent, form encoding, inside a URL), and as an object key. The audit file must hold none
 * of those forms; the hostile server's stderr with the same forms must not reach serve's stderr either.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLines, connect, project, waitFor, type Connected, type TestProject } from "../helpers/gateway.ts";
import { hostileServer, textOf } from "./_hostile.ts";

const SECRET = "sk_live_Zq9+f/Xw3TmE8rVb2pLk";
const b64 = (s: string) => Buffer.from(s).toString("base64");
const hex = (s: string) => Buffer.from(s).toString("hex");

/** The forms of the secret that must not appear anywhere in the audit file (the middle of each, as a search). */
const FORMS = {
  raw: SECRET,
  base64: b64(SECRET).slice(4, -4),
  base64url: Buffer.from(SECRET).toString("base64url").slice(4, -4),
  embedded: b64(`Authorization: Bearer ${SECRET}`).slice(32, -4), // the secret's part of a longer base64 text
  hex: hex(SECRET).slice(2, -2),
  HEX: hex(SECRET).toUpperCase().slice(2, -2),
  uri: encodeURIComponent(SECRET).slice(2, -2),
  plain: "Zq9", // a piece of the raw value, in no encoded form
};

let p: TestProject;
let gw: Connected;

beforeAll(async () => {
  const leak = [b64(SECRET), hex(SECRET), encodeURIComponent(SECRET)].map((f) => ({ stderr: `leak ${f} stderr-marker` }));
  p = project({ evil: hostileServer({ onStart: leak, extra: { secrets: { API_KEY: { env: "MCPBOX_SEC_TEST_KEY" } } } }) });
  gw = await connect(p, { env: { MCPBOX_SEC_TEST_KEY: SECRET } });
});

afterAll(async () => {
  await gw?.client.close();
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

describe("the audit log never holds a secret", () => {
  it("redacts the secret's encoded forms in values and keys", async () => {
    const args = {
      b64: b64(SECRET),
      b64url: Buffer.from(SECRET).toString("base64url"),
      header: b64(`Authorization: Bearer ${SECRET}`),
      hex: hex(SECRET),
      HEX: hex(SECRET).toUpperCase(),
      callback: `https://example.test/cb?token=${encodeURIComponent(SECRET)}&x=1`,
      form: new URLSearchParams({ token: SECRET, user: "a" }).toString(),
      [SECRET]: "as a key",
      nested: { [`key-${b64(SECRET)}`]: [{ deep: `prefix ${SECRET} suffix` }] },
    };
    const r = await gw.client.callTool({ name: "evil__echo", arguments: args });
    expect(textOf(r)).toContain("hostile: "); // it reached the server: the audit line is of a real call
    const line = await waitFor("the call's audit line", () => auditLines(p).find((l) => l.tool === "echo" && l.outcome === "ok"));
    expect(JSON.stringify(line.arguments)).toContain("[redacted]");
    expect(Object.keys(line.arguments as object)).toContain("callback"); // the other keys are kept

    const files = fs.readdirSync(path.join(p.home, "audit")).map((f) => fs.readFileSync(path.join(p.home, "audit", f), "utf8"));
    const audit = files.join("\n");
    for (const [name, form] of Object.entries(FORMS)) expect(audit.includes(form), `${name} form in the audit log`).toBe(false);
  });

  it("redacts them in a server's stderr on serve's stderr", async () => {
    await waitFor("the stderr lines", () => gw.stderr().split("stderr-marker").length > 3, 60_000);
    const err = gw.stderr();
    for (const [name, form] of Object.entries(FORMS)) expect(err.includes(form), `${name} form on stderr`).toBe(false);
  });
});
