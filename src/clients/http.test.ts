/** `config <client> --mode http`: the URL entry with the token as a reference only (SPEC 5), or a clear refusal. */
import { describe, expect, it } from "vitest";
import { CLIENTS, getClient } from "./registry.ts";
import { mergedText, renderHttpEntry, snippetFor } from "./document.ts";

const entry = { name: "mcpbox", url: "http://127.0.0.1:8808/mcp", tokenVar: "MCPBOX_TOKEN" };
const TAKES_URL = ["vscode", "cursor", "claude-code", "windsurf", "gemini-cli", "codex", "opencode"];

describe("--mode http", () => {
  it.each(TAKES_URL)("%s gets the URL and a reference to MCPBOX_TOKEN", (name) => {
    const client = getClient(name);
    const text = snippetFor(client, renderHttpEntry(client, entry));
    expect(text).toContain("http://127.0.0.1:8808/mcp");
    expect(text).toContain("MCPBOX_TOKEN");
    // merging twice changes nothing
    const once = mergedText(client, "", renderHttpEntry(client, entry), "f");
    expect(mergedText(client, once, renderHttpEntry(client, entry), "f")).toBe(once);
  });

  it("each client's own reference syntax", () => {
    const value = (n: string) => renderHttpEntry(getClient(n), entry)[0]!.value;
    expect(value("vscode")).toEqual({ type: "http", url: entry.url, headers: { Authorization: "Bearer ${env:MCPBOX_TOKEN}" } });
    expect(value("claude-code")).toEqual({ type: "http", url: entry.url, headers: { Authorization: "Bearer ${MCPBOX_TOKEN}" } });
    expect(value("cursor")).toEqual({ url: entry.url, headers: { Authorization: "Bearer ${env:MCPBOX_TOKEN}" } });
    expect(value("windsurf")).toEqual({ serverUrl: entry.url, headers: { Authorization: "Bearer ${env:MCPBOX_TOKEN}" } });
    expect(value("gemini-cli")).toEqual({ httpUrl: entry.url, headers: { Authorization: "Bearer ${MCPBOX_TOKEN}" } });
    expect(value("codex")).toEqual({ url: entry.url, bearer_token_env_var: "MCPBOX_TOKEN" });
    expect(value("opencode")).toEqual({ type: "remote", url: entry.url, enabled: true, headers: { Authorization: "Bearer {env:MCPBOX_TOKEN}" } });
  });

  it.each(CLIENTS.filter((c) => !TAKES_URL.includes(c.name)).map((c) => c.name))("%s is refused with --mode gateway named", (name) => {
    const client = getClient(name);
    expect(() => renderHttpEntry(client, entry)).toThrow(new RegExp(`${client.title}.*cannot take the token`));
    try {
      renderHttpEntry(client, entry);
    } catch (e) {
      expect((e as { hint: string }).hint).toContain("--mode gateway");
    }
  });
});
