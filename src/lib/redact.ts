/**
 * Masks credentials in text that came from elsewhere (a receiver's answer kept for the admin), in the forms an echo
 * takes: as they are, base64 (standard and URL-safe), URL-encoded and JSON-escaped. For a header value such as
 * `Bearer X` or `Basic base64(user:password)` the parts are masked too: `X`, `user:password` and the password.
 * Values under 6 characters are left alone: masking them would hide ordinary words and protect nothing.
 */
export function redactCredentials(text: string, values: Iterable<string>): string {
  const forms = new Set<string>();
  const add = (v: string | undefined) => {
    if (!v || v.length < 6) return;
    for (const f of [
      v,
      Buffer.from(v).toString('base64'),
      Buffer.from(v).toString('base64').replace(/=+$/, ''),
      Buffer.from(v).toString('base64url'),
      encodeURIComponent(v),
      JSON.stringify(v).slice(1, -1),
    ])
      forms.add(f);
  };
  for (const value of values) {
    add(value);
    const scheme = /^(\S+)\s+(\S.*)$/.exec(value);
    if (!scheme) continue;
    add(scheme[2]);
    if (scheme[1].toLowerCase() === 'basic') {
      const decoded = Buffer.from(scheme[2], 'base64').toString('utf8');
      add(decoded);
      add(decoded.slice(decoded.indexOf(':') + 1));
    }
  }
  // Longest first, so a form containing another is masked whole.
  let out = text;
  for (const form of [...forms].sort((a, b) => b.length - a.length)) out = out.split(form).join('****');
  return out;
}
