/** A screen's frame: its heading (focused when the screen opens, so a screen reader hears where it is) and title. */
import { useLingui } from '@lingui/react/macro';
import { type ReactNode, useEffect, useRef } from 'react';

export function PageShell({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const { t } = useLingui();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
  }, []);
  useEffect(() => {
    document.title = `${title} · ${t`Shop admin`}`;
  }, [title, t]);
  return (
    <>
      <div className="page-head">
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {actions}
      </div>
      {children}
    </>
  );
}
