import type Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { startServerContainer } from "./container.ts";
import { LABEL } from "../policy/labels.ts";
import { startOneShot } from "./run-once.ts";

const DENIED =
  "(HTTP code 500) server error - Mounts denied: \nThe path /opt/data is not shared from the host and is not known to Docker.\nYou can configure shared paths from Docker -> Preferences... -> Resources -> File Sharing.";

/** An engine that refuses every create the way Docker Desktop does for a folder it does not share. */
const refusing = (message: string) =>
  ({
    // the image's VOLUMEs are read before each create (image-volumes.ts): this one declares none
    getImage: () => ({ inspect: () => Promise.resolve({ Config: {} }) }),
    // every create is one dial of the modem (create.ts)
    modem: { dial: (_o: unknown, done: (e: Error) => void) => done(Object.assign(new Error(message), { statusCode: 500 })) },
  }) as unknown as Docker;
const options = { Image: "mcp/x:1", Labels: { [LABEL.server]: "files" }, HostConfig: { Binds: ["/opt/data:/data:ro"] } };

describe("a create that Docker Desktop refuses for an unshared folder", () => {
  it("is one clear error naming the server, the folder and the file sharing fix (server containers)", async () => {
    const e = await startServerContainer(refusing(DENIED), options).catch((x: unknown) => x);
    expect(e).toMatchObject({ message: "server files: /opt/data is not shared with the engine's VM (Docker Desktop file sharing)", hint: expect.stringMatching(/Settings → Resources → File sharing/) });
  });
  it("the same for one-shot containers (the code runner)", async () => {
    const e = await startOneShot(refusing(DENIED), options).catch((x: unknown) => x);
    expect(e).toMatchObject({ message: "server files: /opt/data is not shared with the engine's VM (Docker Desktop file sharing)" });
  });
  it("other create failures keep their own errors", async () => {
    const e = await startServerContainer(refusing("boom"), options).catch((x: unknown) => x);
    expect((e as Error).message).toBe("could not create the container for server files: boom");
    const once = await startOneShot(refusing("boom"), options).catch((x: unknown) => x);
    expect((once as Error).message).toBe("boom");
  });
});

describe("an image that declares a VOLUME", () => {
  it("gets a tmpfs there in a code run's container too, never an anonymous volume (image-volumes.ts)", async () => {
    let created: { HostConfig?: { Tmpfs?: Record<string, string> } } | undefined;
    const engine = {
      getImage: () => ({ inspect: () => Promise.resolve({ Config: { Volumes: { "/data": {} } } }) }),
      modem: { dial: (o: { options: { _body: typeof created } }, done: (e: Error) => void) => ((created = o.options._body), done(new Error("stop here"))) },
    } as unknown as Docker;
    const run = { ...options, User: "1000:1000", HostConfig: { Tmpfs: { "/tmp": "rw,noexec,nosuid,nodev,size=33554432" } } };
    await startOneShot(engine, run).catch(() => {});
    expect(created?.HostConfig?.Tmpfs?.["/data"]).toBe("rw,noexec,nosuid,nodev,size=33554432,uid=1000,gid=1000");
  });
});

