import { describe, expect, it } from "vitest";
import { answerChallenge, answerChallengeCheck, isKey, newKey, newNonce, proof, proofMatches } from "./handshake.ts";

describe("monitor handshake", () => {
  const key = newKey();
  const challenge = newNonce();

  it("a monitor with the key gets a welcome whose proof it can check; the key itself is never sent", () => {
    expect(isKey(key)).toBe(true);
    const { nonce, message } = answerChallenge(key, challenge);
    const line = JSON.stringify(message);
    expect(line).not.toContain(key);
    const welcome = answerChallengeCheck(key, challenge, line);
    expect(welcome?.type).toBe("welcome");
    expect(JSON.stringify(welcome)).not.toContain(key);
    expect(proofMatches(key, "gateway", challenge, nonce, (welcome as { proof: string }).proof)).toBe(true);
  });

  it("refuses a wrong key, a proof for another challenge, the gateway's own proof sent back, and junk", () => {
    const other = answerChallenge(newKey(), challenge).message;
    expect(answerChallengeCheck(key, challenge, JSON.stringify(other))).toBeUndefined();
    const forOld = answerChallenge(key, newNonce()).message; // replayed from an earlier connection
    expect(answerChallengeCheck(key, challenge, JSON.stringify(forOld))).toBeUndefined();
    const nonce = newNonce();
    const mirrored = { v: 1, type: "auth", nonce, proof: proof(key, "gateway", challenge, nonce) };
    expect(answerChallengeCheck(key, challenge, JSON.stringify(mirrored))).toBeUndefined();
    for (const junk of ["", "{", "null", "[]", '{"v":1,"type":"auth"}', JSON.stringify({ v: 1, type: "auth", nonce: 1, proof: [] }), JSON.stringify({ v: 1, type: "auth", nonce, proof: "" })]) {
      expect(answerChallengeCheck(key, challenge, junk), junk).toBeUndefined();
    }
    // a monitor does not accept a welcome computed for the monitor's role (a reflected proof)
    const { nonce: mine } = answerChallenge(key, challenge);
    expect(proofMatches(key, "gateway", challenge, mine, proof(key, "monitor", challenge, mine))).toBe(false);
  });

  it("keys are 256 random bits in base64url", () => {
    expect(newKey()).not.toBe(newKey());
    expect(Buffer.from(newKey(), "base64url")).toHaveLength(32);
    for (const bad of ["", "x".repeat(42), "x".repeat(44), "+".repeat(43), 7]) expect(isKey(bad)).toBe(false);
  });
});
