/**
 * The monitor connection's mutual authentication, before any event is sent. The gateway writes a random key into its
 * run file (`$MCPBOX_HOME/run/<session>.json`, 0600): whoever can read that file is the user (or root/an admin). On
 * connect the gateway sends a fresh nonce (`challenge`); the monitor answers with its own nonce and an HMAC of both
 * under the key (`auth`); the gateway checks it in constant time and answers with its own HMAC (`welcome`), which the
 * monitor checks before it believes anything. Neither side ever sends the key, so a fake endpoint learns nothing it
 * could replay (the real gateway picks a new nonce per connection), and a peer without the key gets no event and no
 * command through. Needed on Windows, where another user can open the named pipe for reading (its default DACL) and
 * every pipe name can be listed; on POSIX the 0600 socket in a 0700 folder already keeps others out.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const KEY_BYTES = 32;
const NONCE_BYTES = 32;
/** An unauthenticated peer gets this long, and this many bytes, to prove itself. */
export const HANDSHAKE_MS = 5_000;
export const MAX_HANDSHAKE_BYTES = 1024;

export const newKey = (): string => randomBytes(KEY_BYTES).toString("base64url");
export const newNonce = (): string => randomBytes(NONCE_BYTES).toString("base64url");

export type Role = "monitor" | "gateway";

/** HMAC-SHA256 under the key of the role and both nonces (the role keeps one side's proof from serving as the other's). */
export function proof(key: string, role: Role, gatewayNonce: string, monitorNonce: string): string {
  return createHmac("sha256", Buffer.from(key, "base64url")).update(`mcpbox-monitor/1\0${role}\0${gatewayNonce}\0${monitorNonce}`).digest("base64url");
}

/** Constant-time comparison of a received proof with the expected one (any shape of input is safe). */
export function proofMatches(key: string, role: Role, gatewayNonce: string, monitorNonce: unknown, received: unknown): boolean {
  if (typeof monitorNonce !== "string" || typeof received !== "string" || !isNonce(monitorNonce)) return false;
  const expected = Buffer.from(proof(key, role, gatewayNonce, monitorNonce));
  const got = Buffer.from(received);
  return got.length === expected.length && timingSafeEqual(got, expected);
}

export const isKey = (value: unknown): value is string => typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value);
const isNonce = (value: string) => /^[A-Za-z0-9_-]{43}$/.test(value);

export type HandshakeMessage =
  | { v: 1; type: "challenge"; nonce: string }
  | { v: 1; type: "auth"; nonce: string; proof: string }
  | { v: 1; type: "welcome"; proof: string };

/** The monitor's answer to a challenge: its nonce (kept to check the welcome) and the message to send. */
export function answerChallenge(key: string, gatewayNonce: string): { nonce: string; message: HandshakeMessage } {
  const nonce = newNonce();
  return { nonce, message: { v: 1, type: "auth", nonce, proof: proof(key, "monitor", gatewayNonce, nonce) } };
}

/**
 * The gateway's check of a monitor's `auth` line against its challenge: the `welcome` to send when the proof holds,
 * else undefined (the connection is then closed without a word).
 */
export function answerChallengeCheck(key: string, gatewayNonce: string, line: string): HandshakeMessage | undefined {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof m !== "object" || m === null || m.v !== 1 || m.type !== "auth") return undefined;
  if (!proofMatches(key, "monitor", gatewayNonce, m.nonce, m.proof)) return undefined;
  return { v: 1, type: "welcome", proof: proof(key, "gateway", gatewayNonce, m.nonce as string) };
}
