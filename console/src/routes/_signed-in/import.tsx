import { createFileRoute } from '@tanstack/react-router';
import { ComingSoon } from '../../ui/coming-soon.tsx';

export const Route = createFileRoute('/_signed-in/import')({
  staticData: { screen: 'import' },
  component: () => <ComingSoon screen="import" />,
});
