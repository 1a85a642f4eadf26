/**
 * Icons (SEP-973) a server's words may carry to the client: only `data:` URIs, which hold their image. Pure.
 */

/**
 * An item with only the icons (SEP-973) that hold their image: `data:` URIs. Any other `src` is a place the client
 * loads from on the server's word: an `https:` URL of the server's choosing (a `network: "none"` server's data in
 * its query, sent by the client to any host, with no egress rule asked), or a `file:` URI, which names a path in the
 * server's container but which a client (VS Code, for a stdio server such as the gateway) loads from the host's own
 * disk, or on Windows `file://host/share/...` over SMB with the user's credentials. Such icons are dropped.
 */
export function withDataIcons<T extends object>(item: T): T {
  const icons = (item as { icons?: unknown }).icons;
  if (icons === undefined) return item;
  const { icons: _dropped, ...rest } = item as T & { icons?: unknown };
  const kept = Array.isArray(icons) ? icons.filter(isDataIcon) : [];
  return (kept.length > 0 ? { ...rest, icons: kept } : rest) as T;
}

const isDataIcon = (icon: unknown): boolean =>
  typeof icon === "object" && icon !== null && typeof (icon as { src?: unknown }).src === "string" && /^data:/i.test((icon as { src: string }).src);

/**
 * A result with the same rule for the content blocks it carries (a tool's result, a prompt's messages, a task's
 * result: a `resource_link` has icons). The result itself when nothing in it has icons (nothing copied).
 */
export function withDataIconsIn<T>(result: T): T {
  if (typeof result !== "object" || result === null) return result;
  const r = result as Record<string, unknown>;
  let out = r;
  if (Array.isArray(r.content) && r.content.some(hasIcons)) out = { ...out, content: r.content.map((c) => (hasIcons(c) ? withDataIcons(c) : c)) };
  if (Array.isArray(r.messages) && r.messages.some((m) => hasIcons((m as { content?: unknown } | null)?.content))) {
    out = { ...out, messages: r.messages.map((m) => (hasIcons(m?.content) ? { ...m, content: withDataIcons(m.content) } : m)) };
  }
  return out as T;
}

const hasIcons = (v: unknown): v is { icons: unknown } => typeof v === "object" && v !== null && "icons" in v;
