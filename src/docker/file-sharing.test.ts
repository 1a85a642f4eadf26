import { describe, expect, it } from "vitest";
import { McpboxError } from "../errors.ts";
import { defaultSharedFolders, fileSharingProblem, mountsDeniedError, sharedFolders } from "./file-sharing.ts";

const macShared = defaultSharedFolders("darwin", "/Users/me")!;

describe("Docker Desktop file sharing", () => {
  it("macOS defaults: /Users /Volumes /private /tmp /var/folders, case folded", () => {
    for (const ok of ["/Users/me/reports", "/users/me/Reports", "/Volumes/External/data", "/private/tmp/x", "/tmp/x", "/var/folders/ab/T/x"]) {
      expect(fileSharingProblem(ok, "docker-desktop", macShared, "darwin"), ok).toBeUndefined();
    }
    expect(fileSharingProblem("/opt/data", "docker-desktop", macShared, "darwin")).toBe(
      "/opt/data is not shared with Docker Desktop (it shares /Users, /Volumes, /private, /tmp, /var/folders)",
    );
    expect(fileSharingProblem("/Usersx/me", "docker-desktop", macShared, "darwin")).toMatch(/not shared/);
  });
  it("only for Docker Desktop; Windows (WSL 2) shares every drive", () => {
    expect(fileSharingProblem("/opt/data", "colima", macShared, "darwin")).toBeUndefined();
    expect(fileSharingProblem("/opt/data", "orbstack", macShared, "darwin")).toBeUndefined();
    expect(fileSharingProblem("D:\\data", "docker-desktop", defaultSharedFolders("win32", "C:\\Users\\me"), "win32")).toBeUndefined();
  });
  it("Docker Desktop for Linux shares the home folder", () => {
    const shared = defaultSharedFolders("linux", "/home/me");
    expect(fileSharingProblem("/home/me/reports", "docker-desktop", shared, "linux")).toBeUndefined();
    expect(fileSharingProblem("/srv/reports", "docker-desktop", shared, "linux")).toMatch(/^\/srv\/reports is not shared with Docker Desktop/);
  });
  it("reads the folders from Docker Desktop's settings (settings-store.json first), else the defaults", () => {
    const store = "/Users/me/Library/Group Containers/group.com.docker/settings-store.json";
    const old = "/Users/me/Library/Group Containers/group.com.docker/settings.json";
    const files: Record<string, string> = { [store]: JSON.stringify({ filesharingDirectories: ["/Users", "/opt/data"] }), [old]: JSON.stringify({ filesharingDirectories: ["/x"] }) };
    expect(sharedFolders("darwin", "/Users/me", (p) => files[p])).toEqual(["/Users", "/opt/data"]);
    expect(sharedFolders("darwin", "/Users/me", (p) => (p === old ? files[old] : undefined))).toEqual(["/x"]);
    expect(sharedFolders("darwin", "/Users/me", (p) => (p === store ? "{broken" : undefined))).toEqual(macShared);
    expect(sharedFolders("win32", "C:\\Users\\me", () => undefined)).toBeUndefined();
  });
  it("the engine's create failure becomes one clear error naming the folder and the fix", () => {
    const e = new Error(
      "(HTTP code 400) bad parameter - invalid mount config for type \"bind\": bind source path does not exist... Mounts denied: \nThe path /opt/data is not shared from the host and is not known to Docker.\nYou can configure shared paths from Docker -> Preferences... -> Resources -> File Sharing.",
    );
    const err = mountsDeniedError(e, "files");
    expect(err).toBeInstanceOf(McpboxError);
    expect(err?.message).toBe("server files: /opt/data is not shared with the engine's VM (Docker Desktop file sharing)");
    expect(err?.hint).toMatch(/Settings → Resources → File sharing/);
    expect(err?.kind).toBe("environment");
    expect(mountsDeniedError(new Error("no such image"), "files")).toBeUndefined();
  });
});
