/**
 * An ad-hoc code signature for a 64-bit Mach-O executable, written on any OS (no `codesign` here). macOS on arm64
 * kills an executable whose signature is missing or stale, and postject's injection leaves none. The layout is
 * Apple's (xnu osfmk/kern/cs_blobs.h) and the one the Go linker writes for every darwin/arm64 binary: a SuperBlob
 * holding one CodeDirectory (SHA-256 of every 4 KiB page up to the signature; flags adhoc | linker-signed), no
 * entitlements and no hardened runtime, which is what `codesign --sign -` gives a SEA too. On a Mac,
 * `codesign --verify --verbose dist/mcpbox-darwin-arm64` checks it.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";

const MH_MAGIC_64 = 0xfeedfacf;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;
const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CS_ADHOC = 0x2;
const CS_LINKER_SIGNED = 0x20000;
const CS_EXECSEG_MAIN_BINARY = 0x1;
const CS_HASHTYPE_SHA256 = 2;
const PAGE_BITS = 12;
const PAGE = 1 << PAGE_BITS;
const HASH = 32;
const CD_HEADER = 88; // CodeDirectory version 0x20400 up to execSegFlags
const SEGMENT_PAGE = 0x4000; // arm64 macOS pages (x86_64 uses 0x1000, which divides it)

/** Reads the load commands of a 64-bit little-endian Mach-O image. */
export function machoLayout(buf) {
  if (buf.length < 32 || buf.readUInt32LE(0) !== MH_MAGIC_64) throw new Error("not a 64-bit Mach-O executable");
  const ncmds = buf.readUInt32LE(16);
  const sizeofcmds = buf.readUInt32LE(20);
  const segments = [];
  let signature;
  let firstSection = Infinity;
  let off = 32;
  for (let i = 0; i < ncmds; i++) {
    const cmd = buf.readUInt32LE(off);
    const size = buf.readUInt32LE(off + 4);
    if (cmd === LC_SEGMENT_64) {
      const name = buf.toString("latin1", off + 8, off + 24).replace(/\0+$/, "");
      segments.push({ name, cmdOffset: off, fileoff: Number(buf.readBigUInt64LE(off + 40)), filesize: Number(buf.readBigUInt64LE(off + 48)) });
      const nsects = buf.readUInt32LE(off + 64);
      for (let s = 0; s < nsects; s++) {
        const sectOffset = buf.readUInt32LE(off + 72 + s * 80 + 48);
        if (sectOffset > 0) firstSection = Math.min(firstSection, sectOffset);
      }
    } else if (cmd === LC_CODE_SIGNATURE) {
      signature = { cmdOffset: off, dataoff: buf.readUInt32LE(off + 8), datasize: buf.readUInt32LE(off + 12) };
    }
    off += size;
  }
  return { cputype: buf.readUInt32LE(4), ncmds, sizeofcmds, commandsEnd: off, firstSection, segments, signature };
}

/** Signs `file` in place (any earlier signature is replaced). */
export function adhocSign(file, identifier = "mcpbox") {
  let buf = fs.readFileSync(file);
  let layout = machoLayout(buf);
  const linkedit = layout.segments.find((s) => s.name === "__LINKEDIT");
  const text = layout.segments.find((s) => s.name === "__TEXT");
  if (!linkedit || !text) throw new Error("Mach-O without __TEXT or __LINKEDIT");
  const linkeditEnd = linkedit.fileoff + linkedit.filesize;
  let codeLimit;
  if (layout.signature) {
    codeLimit = layout.signature.dataoff;
    if (linkeditEnd !== codeLimit + layout.signature.datasize) throw new Error("the code signature does not end __LINKEDIT");
  } else {
    if (linkeditEnd !== buf.length) throw new Error("__LINKEDIT does not end the file");
    if (layout.commandsEnd + 16 > layout.firstSection) throw new Error("no room for a code signature load command");
    codeLimit = align(buf.length, 16);
    buf.writeUInt32LE(LC_CODE_SIGNATURE, layout.commandsEnd);
    buf.writeUInt32LE(16, layout.commandsEnd + 4);
    buf.writeUInt32LE(layout.ncmds + 1, 16);
    buf.writeUInt32LE(layout.sizeofcmds + 16, 20);
    layout = machoLayout(buf);
  }
  const slots = Math.ceil(codeLimit / PAGE);
  const cdSize = CD_HEADER + identifier.length + 1 + slots * HASH;
  const sigSize = align(12 + 8 + cdSize, 16);
  // the load commands first: the page hashes cover them
  buf.writeUInt32LE(codeLimit, layout.signature.cmdOffset + 8);
  buf.writeUInt32LE(sigSize, layout.signature.cmdOffset + 12);
  const linkeditSize = codeLimit + sigSize - linkedit.fileoff;
  buf.writeBigUInt64LE(BigInt(linkeditSize), linkedit.cmdOffset + 48);
  const vmsize = Number(buf.readBigUInt64LE(linkedit.cmdOffset + 32));
  if (vmsize < linkeditSize) buf.writeBigUInt64LE(BigInt(align(linkeditSize, SEGMENT_PAGE)), linkedit.cmdOffset + 32);

  const code = Buffer.alloc(codeLimit);
  buf.copy(code, 0, 0, Math.min(buf.length, codeLimit));
  buf = undefined;
  const sig = Buffer.alloc(sigSize);
  sig.writeUInt32BE(CSMAGIC_EMBEDDED_SIGNATURE, 0);
  sig.writeUInt32BE(sigSize, 4);
  sig.writeUInt32BE(1, 8); // one blob: the CodeDirectory, in slot 0
  sig.writeUInt32BE(0, 12);
  sig.writeUInt32BE(20, 16);
  const cd = 20;
  const identOffset = CD_HEADER;
  const hashOffset = identOffset + identifier.length + 1;
  sig.writeUInt32BE(CSMAGIC_CODEDIRECTORY, cd);
  sig.writeUInt32BE(cdSize, cd + 4);
  sig.writeUInt32BE(0x20400, cd + 8);
  sig.writeUInt32BE(CS_ADHOC | CS_LINKER_SIGNED, cd + 12);
  sig.writeUInt32BE(hashOffset, cd + 16);
  sig.writeUInt32BE(identOffset, cd + 20);
  sig.writeUInt32BE(0, cd + 24); // special slots
  sig.writeUInt32BE(slots, cd + 28);
  sig.writeUInt32BE(codeLimit, cd + 32);
  sig.writeUInt8(HASH, cd + 36);
  sig.writeUInt8(CS_HASHTYPE_SHA256, cd + 37);
  sig.writeUInt8(0, cd + 38);
  sig.writeUInt8(PAGE_BITS, cd + 39);
  // spare2, scatterOffset, teamOffset, spare3, codeLimit64 stay 0
  sig.writeBigUInt64BE(BigInt(text.fileoff), cd + 64);
  sig.writeBigUInt64BE(BigInt(text.filesize), cd + 72);
  sig.writeBigUInt64BE(BigInt(CS_EXECSEG_MAIN_BINARY), cd + 80);
  sig.write(`${identifier}\0`, cd + identOffset, "latin1");
  for (let i = 0; i < slots; i++) {
    const page = code.subarray(i * PAGE, Math.min((i + 1) * PAGE, codeLimit));
    createHash("sha256").update(page).digest().copy(sig, cd + hashOffset + i * HASH);
  }
  const fd = fs.openSync(file, "w");
  try {
    fs.writeSync(fd, code);
    fs.writeSync(fd, sig);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Checks an ad-hoc signature as the kernel would: the CodeDirectory's page hashes match the file up to the
 * signature, which ends __LINKEDIT. Returns a list of problems (empty when it is sound).
 */
export function verifyAdhocSignature(buf) {
  const layout = machoLayout(buf);
  const sig = layout.signature;
  if (!sig) return ["no LC_CODE_SIGNATURE"];
  const problems = [];
  const linkedit = layout.segments.find((s) => s.name === "__LINKEDIT");
  if (linkedit.fileoff + linkedit.filesize !== sig.dataoff + sig.datasize) problems.push("__LINKEDIT does not end with the signature");
  if (sig.dataoff + sig.datasize !== buf.length) problems.push("the signature does not end the file");
  const s = buf.subarray(sig.dataoff, sig.dataoff + sig.datasize);
  if (s.readUInt32BE(0) !== CSMAGIC_EMBEDDED_SIGNATURE) return [...problems, "no embedded signature SuperBlob"];
  const cd = s.readUInt32BE(16);
  if (s.readUInt32BE(cd) !== CSMAGIC_CODEDIRECTORY) return [...problems, "no CodeDirectory"];
  const flags = s.readUInt32BE(cd + 12);
  if ((flags & CS_ADHOC) === 0) problems.push("not ad-hoc");
  const hashOffset = s.readUInt32BE(cd + 16);
  const slots = s.readUInt32BE(cd + 28);
  const codeLimit = s.readUInt32BE(cd + 32);
  if (codeLimit !== sig.dataoff) problems.push(`codeLimit ${codeLimit} is not the signature offset ${sig.dataoff}`);
  if (slots !== Math.ceil(codeLimit / PAGE)) problems.push("wrong number of page hashes");
  let bad = 0;
  for (let i = 0; i < slots; i++) {
    const want = s.subarray(cd + hashOffset + i * HASH, cd + hashOffset + (i + 1) * HASH);
    const got = createHash("sha256").update(buf.subarray(i * PAGE, Math.min((i + 1) * PAGE, codeLimit))).digest();
    if (!got.equals(want)) bad++;
  }
  if (bad > 0) problems.push(`${bad} of ${slots} page hashes do not match`);
  return problems;
}

function align(n, a) {
  return Math.ceil(n / a) * a;
}
