/**
 * The categories screen's dialogs: a name (new category, rename) and a new parent ("Move to…"). Each
 * is a form dialog (ui/form-dialog.tsx); the service's field problems go under their fields. The
 * screen keys each opening, so a dialog starts from the values it is opened with.
 */
import { useLingui } from '@lingui/react/macro';
import { useId, useState } from 'react';
import { ApiError, problemsByField } from '../../../gql/errors.ts';
import { FormDialog } from '../../../ui/form-dialog.tsx';
import { TextField } from '../../../ui/text-field.tsx';
import { pathName, possibleParents, type Tree } from './tree.ts';

/** A problem that no field of `fields` shows: the message of any error but one on those fields. */
export function formProblem(error: unknown, fields: readonly string[]): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const byField = problemsByField(error);
  if (fields.some((f) => byField[f])) return undefined;
  if (error instanceof ApiError && error.code === 'VALIDATION_FAILED' && error.fieldProblems.length) {
    return error.fieldProblems.map((p) => `${p.field}: ${p.message}`).join('; ');
  }
  return error.message;
}

interface NameDialogProps {
  open: boolean;
  title: string;
  submitLabel: string;
  initial: string;
  busy: boolean;
  error: unknown;
  onSubmit: (name: string) => void;
  onCancel: () => void;
}

export function NameDialog({ open, title, submitLabel, initial, busy, error, onSubmit, onCancel }: NameDialogProps) {
  const { t } = useLingui();
  const [name, setName] = useState(initial);
  return (
    <FormDialog
      open={open}
      title={title}
      submitLabel={submitLabel}
      busy={busy}
      error={formProblem(error, ['name'])}
      onCancel={onCancel}
      onSubmit={() => onSubmit(name)}
    >
      <TextField
        label={t`Name`}
        value={name}
        maxLength={100}
        autoComplete="off"
        error={problemsByField(error).name}
        onChange={(e) => setName(e.target.value)}
      />
    </FormDialog>
  );
}

interface MoveDialogProps {
  open: boolean;
  tree: Tree;
  /** The category to move. */
  id: number;
  busy: boolean;
  error: unknown;
  onSubmit: (parentId: number | null) => void;
  onCancel: () => void;
}

const TOP = 'top';

/** "Move to…": a new parent picked from every category that may be one (not itself, nothing below it). */
export function MoveDialog({ open, tree, id, busy, error, onSubmit, onCancel }: MoveDialogProps) {
  const { t } = useLingui();
  const selectId = useId();
  const errorId = `${selectId}-error`;
  const hintId = `${selectId}-hint`;
  const node = tree.byId.get(id);
  const [parent, setParent] = useState(node?.parentId == null ? TOP : String(node.parentId));
  if (!node) return null;
  const name = node.name;
  const problem = problemsByField(error).parentId;
  return (
    <FormDialog
      open={open}
      title={t`Move ${name} to…`}
      submitLabel={t`Move`}
      busy={busy}
      error={formProblem(error, ['parentId'])}
      onCancel={onCancel}
      onSubmit={() => onSubmit(parent === TOP ? null : Number(parent))}
    >
      <div className="field">
        <label htmlFor={selectId}>{t`New parent`}</label>
        <select
          id={selectId}
          value={parent}
          onChange={(e) => setParent(e.target.value)}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${hintId} ${errorId}` : hintId}
        >
          <option value={TOP}>{t`(Top level)`}</option>
          {possibleParents(tree, id).map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              {pathName(tree, candidate.id)}
            </option>
          ))}
        </select>
        <p id={hintId} className="muted hint">
          {t`It goes last among its new siblings, with everything below it.`}
        </p>
        {problem && (
          <p id={errorId} className="field-error">
            {problem}
          </p>
        )}
      </div>
    </FormDialog>
  );
}
