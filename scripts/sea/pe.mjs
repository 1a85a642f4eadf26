/**
 * Node's Windows binary carries an Authenticode signature that the injection makes invalid. It is removed before
 * the injection (what `signtool remove /s` does, as Node's SEA guide suggests): an unsigned mcpbox.exe runs; a
 * signature that no longer matches only misleads.
 */
const SECURITY_DIRECTORY = 4;

/** The PE image with its certificate table removed (the same buffer when it has none). */
export function withoutSignature(buf) {
  const dir = securityDirectory(buf);
  if (dir.size === 0) return buf;
  if (dir.offset + dir.size !== buf.length) throw new Error("the PE certificate table is not at the end of the file");
  const out = Buffer.from(buf.subarray(0, dir.offset));
  out.writeUInt32LE(0, dir.entry);
  out.writeUInt32LE(0, dir.entry + 4);
  return out;
}

export function securityDirectory(buf) {
  const pe = peHeader(buf);
  const optional = pe + 24;
  const magic = buf.readUInt16LE(optional);
  const dirs = optional + (magic === 0x20b ? 112 : 96);
  const entry = dirs + SECURITY_DIRECTORY * 8;
  return { entry, offset: buf.readUInt32LE(entry), size: buf.readUInt32LE(entry + 4) };
}

/** Offset of "PE\0\0"; throws when buf is no PE image. */
export function peHeader(buf) {
  if (buf.length < 64 || buf.toString("latin1", 0, 2) !== "MZ") throw new Error("not a PE image (no MZ header)");
  const pe = buf.readUInt32LE(0x3c);
  if (buf.toString("latin1", pe, pe + 4) !== "PE\0\0") throw new Error("not a PE image (no PE signature)");
  return pe;
}
