import { createFileRoute } from '@tanstack/react-router';
import { ComingSoon } from '../../ui/coming-soon.tsx';

export const Route = createFileRoute('/_signed-in/search')({
  staticData: { screen: 'search' },
  component: () => <ComingSoon screen="search" />,
});
