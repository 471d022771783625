import { useState } from 'react';
import { Button } from '../../components/Button';

/** What a section just saved, announced politely; the line keeps its place when empty. */
export function Saved({ message }: { message?: string }) {
  return (
    <p className="settings-saved" role="status">
      {message}
    </p>
  );
}

/** Copies a secret or codes shown once; says so when it worked. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span className="copy">
      <Button
        onPress={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setCopied(true);
          } catch {
            setCopied(false);
          }
        }}
      >
        {label}
      </Button>
      <span role="status" className="settings-saved">
        {copied ? 'Copied.' : ''}
      </span>
    </span>
  );
}
