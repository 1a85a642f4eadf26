/**
 * Docker's image reference grammar (distribution/reference): `[domain/]path[:tag][@digest]`. An image that does not
 * follow it is refused before it reaches a command line, where a leading `-` would be read as an option.
 */
const alnum = "[a-z0-9]+";
const separator = "(?:[._]|__|[-]+)";
const pathComponent = `${alnum}(?:${separator}${alnum})*`;
const domainComponent = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const ipv6 = "\\[(?:[a-fA-F0-9:]+)\\]";
const domain = `(?:${domainComponent}(?:\\.${domainComponent})*|${ipv6})(?::[0-9]+)?`;
const name = `(?:${domain}/)?${pathComponent}(?:/${pathComponent})*`;
const tag = "[\\w][\\w.-]{0,127}";
const digest = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";

/** A whole image reference, e.g. `ghcr.io/github/github-mcp-server:v1.0.0` or `node@sha256:…`. */
export const IMAGE_REFERENCE = new RegExp(`^${name}(?::${tag})?(?:@${digest})?$`);

/** A registry to push to: a domain with an optional path, e.g. `127.0.0.1:5000/team`. */
export const REGISTRY_REFERENCE = new RegExp(`^${domain}(?:/${pathComponent})*$`);

/** Docker's longest repository name. */
const NAME_MAX = 255;

export function isImageReference(image: string): boolean {
  if (!IMAGE_REFERENCE.test(image)) return false;
  const repository = image.split("@")[0]!.replace(/:[\w][\w.-]{0,127}$/, "");
  return repository.length <= NAME_MAX;
}

export const IMAGE_MESSAGE =
  'must be an image reference like "ghcr.io/owner/name:tag" (lowercase path, optional registry, tag and @digest)';
