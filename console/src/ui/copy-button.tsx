/**
 * A Copy button for a secret the service shows once (an API key, recovery codes): the text goes to
 * the clipboard, and a polite live region beside the button says whether it did ("Copied"), so a
 * screen reader hears it and a sighted admin sees it — the button itself keeps its name.
 */
import { Trans } from '@lingui/react/macro';
import { useEffect, useState } from 'react';

type CopyState = 'idle' | 'copied' | 'failed';

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<CopyState>('idle');
  // A new text (another key) is not "copied" yet.
  useEffect(() => setState('idle'), [text]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      // No clipboard (an insecure origin, a denied permission): the text stays on screen to select.
      setState('failed');
    }
  };
  return (
    <span className="copy-button">
      <button type="button" className="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" aria-live="polite" className="copy-status">
        {state === 'copied' ? (
          <Trans>Copied</Trans>
        ) : state === 'failed' ? (
          <Trans>Could not copy: select the text and copy it yourself.</Trans>
        ) : null}
      </span>
    </span>
  );
}
