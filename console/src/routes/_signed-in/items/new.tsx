/** A new item (contract §15): the item editor, empty. */
import { createFileRoute } from '@tanstack/react-router';
import { ItemEditor } from './-components/item-editor.tsx';

export const Route = createFileRoute('/_signed-in/items/new')({
  staticData: { screen: 'items' },
  component: () => <ItemEditor />,
});
