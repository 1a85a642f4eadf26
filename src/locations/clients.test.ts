/**
 * The location table and the client formats name the same clients, and each format's files are the table's: the
 * writable-mount check reads only the table, so a client missing from it would go unguarded.
 */
import { describe, expect, it } from "vitest";
import { CLIENTS } from "../clients/registry.ts";
import { CLIENT_LOCATIONS, type ClientLocation } from "./clients.ts";

const table: Record<string, ClientLocation> = CLIENT_LOCATIONS;

describe("the location table", () => {
  it("has one row per client format, and none more", () => {
    expect(Object.keys(table).sort()).toEqual(CLIENTS.map((c) => c.name).sort());
  });
  it.each(CLIENTS.map((c) => [c.name, c] as const))("%s takes its files from the table", (name, c) => {
    const row = table[name]!;
    expect(c.userFile).toBe(row.userFile);
    expect(c.projectFile).toBe(row.projectFile);
    expect(c.siblings).toBe(row.siblings);
  });
});
