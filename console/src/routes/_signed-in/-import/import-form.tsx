/**
 * The upload (contract §13.1–13.2): a CSV or JSON Lines file, its format (guessed from the file's
 * name, changeable), the mode, and "dry run" — on by default, so a file is checked before anything
 * is written — and "all or nothing". The file goes as a GraphQL multipart request (gql/request.ts).
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { type FormEvent, useId, useState } from 'react';
import { ApiError, problemsByField } from '../../../gql/errors.ts';
import type { ImportFormat, ImportMode } from './import.gql.ts';

export interface ImportRequest {
  file: File;
  format: ImportFormat;
  mode: ImportMode;
  dryRun: boolean;
  atomic: boolean;
}

/** JSON Lines by its usual extensions, else CSV. */
export const formatOfName = (name: string): ImportFormat => (/\.(jsonl|ndjson)$/i.test(name) ? 'jsonl' : 'csv');

const MODES: readonly ImportMode[] = ['upsert', 'create', 'update'];

export function ImportForm({
  busy,
  error,
  onStart,
}: {
  busy: boolean;
  error: unknown;
  onStart: (request: ImportRequest) => void;
}) {
  const { t } = useLingui();
  const id = useId();
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<ImportFormat>('csv');
  const [mode, setMode] = useState<ImportMode>('upsert');
  const [dryRun, setDryRun] = useState(true);
  const [atomic, setAtomic] = useState(false);
  const [missing, setMissing] = useState(false);

  const modeNames: Record<ImportMode, string> = {
    upsert: t`Create and update (upsert)`,
    create: t`Create only`,
    update: t`Update only`,
  };
  const byField = problemsByField(error);
  const fileProblem = missing ? t`Choose a file first.` : byField.file;
  const other = error instanceof ApiError && !Object.keys(byField).length ? error.message : undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!file) {
      setMissing(true);
      document.getElementById(`${id}-file`)?.focus();
      return;
    }
    onStart({ file, format, mode, dryRun, atomic });
  };

  return (
    <form className="import-form" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor={`${id}-file`}>{t`File (CSV or JSON Lines)`}</label>
        <input
          id={`${id}-file`}
          type="file"
          accept=".csv,.jsonl,.ndjson,text/csv,application/x-ndjson"
          aria-invalid={fileProblem ? true : undefined}
          aria-describedby={fileProblem ? `${id}-file-hint ${id}-file-error` : `${id}-file-hint`}
          onChange={(e) => {
            const chosen = e.target.files?.[0] ?? null;
            setFile(chosen);
            setMissing(false);
            if (chosen) setFormat(formatOfName(chosen.name));
          }}
        />
        <p id={`${id}-file-hint`} className="muted hint">
          <Trans>
            CSV with one row per SKU and a header row, or JSON Lines with one item per line; the handle names each item.
          </Trans>
        </p>
        {fileProblem && (
          <p id={`${id}-file-error`} className="field-error">
            {fileProblem}
          </p>
        )}
      </div>
      <div className="filters">
        <div className="field">
          <label htmlFor={`${id}-format`}>{t`Format`}</label>
          <select id={`${id}-format`} value={format} onChange={(e) => setFormat(e.target.value as ImportFormat)}>
            <option value="csv">CSV</option>
            <option value="jsonl">JSON Lines</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-mode`}>{t`Mode`}</label>
          <select id={`${id}-mode`} value={mode} onChange={(e) => setMode(e.target.value as ImportMode)}>
            {MODES.map((m) => (
              <option key={m} value={m}>
                {modeNames[m]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="check">
        <input id={`${id}-dry`} type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.target.checked)} />
        <label htmlFor={`${id}-dry`}>{t`Dry run: check the file and count, write nothing`}</label>
      </div>
      <div className="check">
        <input id={`${id}-atomic`} type="checkbox" checked={atomic} onChange={(e) => setAtomic(e.target.checked)} />
        <label htmlFor={`${id}-atomic`}>{t`All or nothing: write no item unless every item is valid`}</label>
      </div>
      {other && (
        <p className="form-error" role="alert">
          {other}
        </p>
      )}
      <button type="submit" className="button primary" disabled={busy} aria-busy={busy || undefined}>
        {dryRun ? t`Check the file` : t`Import the file`}
      </button>
      {/* The service reads the whole file before it answers (its rows are counted as they arrive). */}
      <p className="muted" role="status">
        {busy ? t`Sending the file; its rows are read as it arrives…` : ''}
      </p>
    </form>
  );
}
