import { createFileRoute } from '@tanstack/react-router';
import { ComingSoon } from '../../ui/coming-soon.tsx';

export const Route = createFileRoute('/_signed-in/account')({
  staticData: { screen: 'account' },
  component: () => <ComingSoon screen="account" />,
});
