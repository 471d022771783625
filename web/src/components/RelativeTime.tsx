const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const fullFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'long' });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A time as people say it ("just now", "5 minutes ago", "yesterday"; a date after a week) and in full. */
export function relativeWhen(iso: string, now = Date.now()): { text: string; full: string } {
  const at = new Date(iso);
  const seconds = Math.round((at.getTime() - now) / 1000);
  const ago = -seconds;
  const text =
    ago < 45
      ? 'just now'
      : ago < 3600
        ? relative.format(Math.round(seconds / 60), 'minute')
        : ago < 86400
          ? relative.format(Math.round(seconds / 3600), 'hour')
          : ago < 7 * 86400
            ? relative.format(Math.round(seconds / 86400), 'day')
            : dateFormat.format(at);
  return { text, full: fullFormat.format(at) };
}

/** `relativeWhen` in a <time> element whose tooltip gives the time in full. */
export function RelativeTime({ iso }: { iso: string }) {
  const at = relativeWhen(iso);
  return (
    <time dateTime={iso} title={at.full}>
      {at.text}
    </time>
  );
}
