/** Heuristics for secrets written as literal values (a warning, SPEC 2.3). */
const KEY_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?|AUTH)/i;

const VALUE_PATTERNS = [
  /\bgh[pousr]_[A-Za-z0-9]{20,}/, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/,
  /\bsk-[A-Za-z0-9_-]{20,}/, // OpenAI / Anthropic style keys
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/, // Slack
  /\bAKIA[0-9A-Z]{16}\b/, // AWS access key id
  /\bglpat-[A-Za-z0-9_-]{20,}/, // GitLab
  /\bAIza[0-9A-Za-z_-]{35}\b/, // Google API key
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /^(--?[a-z-]*(token|secret|password|api-?key)[a-z-]*=).{8,}/i,
];

export const credentialKeyName = (name: string) => KEY_NAME.test(name);

export const looksLikeCredential = (value: string) => VALUE_PATTERNS.some((re) => re.test(value));
