/** What every command receives: the global options and where it runs. */
export interface Context {
  /** -c, --config */
  configPath: string | undefined;
  cwd: string;
  /** the command's own options, merged with the global ones */
  options: Record<string, unknown>;
}
