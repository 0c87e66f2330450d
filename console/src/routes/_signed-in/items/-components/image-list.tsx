/**
 * An item's images by URL, in the order the shop shows them. Each row moves up or down with a button
 * — Tab to it, Enter or Space — and the focus stays on the moved image's button, so a keyboard can
 * keep moving it; a live region says where it went (console.md §3: reordering by keyboard).
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useEffect, useRef, useState } from 'react';
import { TextField } from '../../../../ui/text-field.tsx';
import { type ImageDraft, moved, newKey } from './item-draft.ts';

export function ImageList({
  images,
  onChange,
  errors,
}: {
  images: ImageDraft[];
  onChange: (images: ImageDraft[]) => void;
  /** Problems by the service's field names (`images[1].url`). */
  errors: Record<string, string>;
}) {
  const { t } = useLingui();
  const list = useRef<HTMLOListElement>(null);
  const [announcement, setAnnouncement] = useState('');
  // After a move: the moved image's button to focus (by the row's key), once the list has re-rendered.
  const [focusAfter, setFocusAfter] = useState<{ key: string; button: 'up' | 'down' | 'url' } | null>(null);
  useEffect(() => {
    if (!focusAfter) return;
    const row = list.current?.querySelector<HTMLElement>(`[data-key="${focusAfter.key}"]`);
    if (focusAfter.button === 'url') {
      row?.querySelector('input')?.focus();
      setFocusAfter(null);
      return;
    }
    const wanted = row?.querySelector<HTMLButtonElement>(`[data-move="${focusAfter.button}"]`);
    const other = row?.querySelector<HTMLButtonElement>(`[data-move="${focusAfter.button === 'up' ? 'down' : 'up'}"]`);
    // At the top or bottom the pressed button is disabled: the other one keeps the focus in the row.
    (wanted && !wanted.disabled ? wanted : other)?.focus();
    setFocusAfter(null);
  }, [focusAfter]);

  const move = (index: number, by: -1 | 1) => {
    const image = images[index];
    if (!image) return;
    onChange(moved(images, index, index + by));
    const position = index + by + 1;
    setAnnouncement(t`Image moved to position ${position}.`);
    setFocusAfter({ key: image.key, button: by < 0 ? 'up' : 'down' });
  };

  return (
    <fieldset className="image-list">
      <legend>
        <Trans>Images</Trans>
      </legend>
      <p className="muted hint">
        <Trans>The first image is the one the shop shows first. At most 20, each an http(s) URL.</Trans>
      </p>
      {images.length > 0 && (
        <ol ref={list}>
          {images.map((image, index) => {
            const n = index + 1;
            return (
              <li key={image.key} data-key={image.key} className="image-row">
                <TextField
                  label={t`Image ${n} URL`}
                  type="url"
                  inputMode="url"
                  value={image.url}
                  maxLength={2048}
                  onChange={(e) =>
                    onChange(
                      images.map((other) => (other.key === image.key ? { ...other, url: e.target.value } : other)),
                    )
                  }
                  error={errors[`images[${index}].url`] ?? errors[`images[${index}]`]}
                />
                <div className="button-row">
                  <button
                    type="button"
                    className="button"
                    data-move="up"
                    disabled={index === 0}
                    onClick={() => move(index, -1)}
                  >
                    <Trans>Move image {n} up</Trans>
                  </button>
                  <button
                    type="button"
                    className="button"
                    data-move="down"
                    disabled={index === images.length - 1}
                    onClick={() => move(index, 1)}
                  >
                    <Trans>Move image {n} down</Trans>
                  </button>
                  <button
                    type="button"
                    className="button"
                    onClick={() => onChange(images.filter((other) => other.key !== image.key))}
                  >
                    <Trans>Remove image {n}</Trans>
                  </button>
                </div>
              </li>
            );
          })}
        </ol>
      )}
      {errors.images && <p className="field-error">{errors.images}</p>}
      <button
        type="button"
        className="button"
        disabled={images.length >= 20}
        onClick={() => {
          const key = newKey();
          onChange([...images, { key, url: '' }]);
          setFocusAfter({ key, button: 'url' });
        }}
      >
        <Trans>Add image</Trans>
      </button>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
    </fieldset>
  );
}
