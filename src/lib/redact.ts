/**
 * Masks credentials in text that came from elsewhere (a receiver's answer kept for the admin), in the forms an echo
 * takes: as they are, hex of their UTF-8 bytes, base64 (standard and URL-safe), URL-encoded and JSON-escaped. As
 * they are and hex match in any case (a receiver may upper-case a token or write hex in capitals); base64 must match
 * exactly, its case being part of the value. For a header value such as `Bearer X` or `Basic base64(user:password)`
 * the parts are masked too: `X`, `user:password` and the password. Values under 6 characters are left alone:
 * masking them would hide ordinary words and protect nothing.
 */
export function redactCredentials(text: string, values: Iterable<string>): string {
  // Each form, and whether it matches in any case.
  const forms = new Map<string, boolean>();
  const put = (form: string, anyCase: boolean) => forms.set(form, anyCase || forms.get(form) === true);
  const add = (v: string | undefined) => {
    if (!v || v.length < 6) return;
    const bytes = Buffer.from(v);
    put(v, true);
    put(bytes.toString('hex'), true);
    for (const f of [
      bytes.toString('base64'),
      bytes.toString('base64').replace(/=+$/, ''),
      bytes.toString('base64url'),
      encodeURIComponent(v),
      JSON.stringify(v).slice(1, -1),
    ])
      put(f, false);
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
  for (const [form, anyCase] of [...forms].sort(([a], [b]) => b.length - a.length))
    out = out.replace(new RegExp(form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), anyCase ? 'gi' : 'g'), '****');
  return out;
}
