/** One item in the editor (contract §15), read with adminItem whatever its state. */
import { Trans, useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link } from '@tanstack/react-router';
import { PageShell } from '../../../ui/page-shell.tsx';
import { ItemEditor, itemQuery } from './-components/item-editor.tsx';

export const Route = createFileRoute('/_signed-in/items/$id')({
  staticData: { screen: 'items' },
  component: ItemScreen,
});

function ItemScreen() {
  const { t } = useLingui();
  const id = Number(Route.useParams().id);
  const valid = Number.isInteger(id) && id >= 1 && id <= 2147483647;
  const item = useQuery({ ...itemQuery(id), enabled: valid });
  if (valid && item.isPending) {
    return (
      <p role="status">
        <Trans>Loading the item…</Trans>
      </p>
    );
  }
  if (item.isError) {
    return (
      <PageShell title={t`Item`}>
        <p className="form-error" role="alert">
          {item.error.message}
        </p>
      </PageShell>
    );
  }
  if (!valid || !item.data) {
    return (
      <PageShell title={t`No such item`}>
        <p className="notice">
          <Trans>
            There is no item with this number; it may have been deleted. <Link to="/items">Back to items</Link>
          </Trans>
        </p>
      </PageShell>
    );
  }
  // A new key for another item: its own form, not the last one's edits.
  return <ItemEditor key={item.data.id} item={item.data} />;
}
