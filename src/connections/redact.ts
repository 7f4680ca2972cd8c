/**
 * Secrets of a connection URL (the URL itself, its password, its user-info) replaced by `***`
 * in a text, for the few database messages passed on to callers (a syntax error's text, a
 * missing column). Driver messages about connecting are never passed on at all.
 */
export function secretsOf(url: string): string[] {
  const secrets = [url];
  try {
    const parsed = new URL(url);
    if (parsed.password) {
      secrets.push(parsed.password, decodeURIComponent(parsed.password));
    }
  } catch {
    // Not a URL (a SQLite path): the whole text is the only secret.
  }
  return secrets.filter((s) => s.length >= 3).sort((a, b) => b.length - a.length);
}

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('***');
  return out;
}
