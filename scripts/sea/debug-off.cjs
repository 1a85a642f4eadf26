/**
 * The `debug` package as the binary and the npm package have it: every namespace off, whatever DEBUG says. The real
 * one prints to stderr when DEBUG names a namespace (DEBUG=* is a common setting, and a client's env may carry it),
 * and docker-modem's namespace prints each engine request and answer whole: a create's Env (the secrets), an
 * inspect's Config.Env, a registry's auth header. serve's stderr is the client's log file. scripts/sea/bundle.mjs
 * aliases `debug` here.
 */
"use strict";
function createDebug(namespace) {
  const debug = () => {};
  debug.namespace = namespace;
  debug.enabled = false;
  debug.useColors = false;
  debug.color = 0;
  debug.diff = 0;
  debug.log = () => {};
  debug.destroy = () => false;
  debug.extend = (sub, delimiter = ":") => createDebug(`${namespace}${delimiter}${sub}`);
  return debug;
}
createDebug.debug = createDebug;
createDebug.default = createDebug;
createDebug.enable = () => {};
createDebug.disable = () => "";
createDebug.enabled = () => false;
createDebug.coerce = (v) => v;
createDebug.humanize = (ms) => `${ms}ms`;
createDebug.names = [];
createDebug.skips = [];
createDebug.formatters = {};
createDebug.inspectOpts = {};
module.exports = createDebug;
