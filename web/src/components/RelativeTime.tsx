import { relativeWhen } from '../lib/format';

/** `relativeWhen` in a <time> element whose tooltip gives the time in full. */
export function RelativeTime({ iso }: { iso: string }) {
  const at = relativeWhen(iso);
  return (
    <time dateTime={iso} title={at.full}>
      {at.text}
    </time>
  );
}
