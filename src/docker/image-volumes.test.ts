import { describe, expect, it } from "vitest";
import type { ContainerCreateOptions } from "dockerode";
import { boundImageVolumes } from "./image-volumes.ts";

const TMP = "rw,noexec,nosuid,nodev,size=1024";
const options = (host: ContainerCreateOptions["HostConfig"] = {}, user = "1000:1000"): ContainerCreateOptions => ({
  Image: "i",
  User: user,
  HostConfig: { Tmpfs: { "/tmp": TMP }, Binds: [], ...host },
});

describe("boundImageVolumes", () => {
  it("puts a tmpfs of the /tmp options, owned by the container's user, at each VOLUME of the image", () => {
    const o = boundImageVolumes(options(), ["/data", "/var/lib/db/"]);
    expect(o.HostConfig?.Tmpfs).toEqual({ "/tmp": TMP, "/data": `${TMP},uid=1000,gid=1000`, "/var/lib/db": `${TMP},uid=1000,gid=1000` });
  });

  it("leaves a path a configured mount or tmpfs already covers, and an image without VOLUMEs, as they are", () => {
    const host = { Binds: ["/home/me/data:/data:rw", "C:\\Users\\me\\x:/x:ro"], Mounts: [{ Type: "volume" as const, Source: "v", Target: "/m" }], Tmpfs: { "/tmp": TMP, "/run": "rw" } };
    const given = options(host);
    expect(boundImageVolumes(given, ["/data", "/x", "/m/", "/tmp", "/run"])).toBe(given);
    expect(boundImageVolumes(given, [])).toBe(given);
  });

  it("takes the owner from a numeric user only, else a sticky world-writable folder", () => {
    expect(boundImageVolumes(options({}, "app"), ["/data"]).HostConfig?.Tmpfs?.["/data"]).toBe(`${TMP},mode=1777`);
    expect(boundImageVolumes(options({ Tmpfs: { "/tmp": `${TMP},uid=5,gid=5,mode=0700` } }, "7:8"), ["/d"]).HostConfig?.Tmpfs?.["/d"]).toBe(`${TMP},uid=7,gid=8`);
  });
});
