import { createFileRoute } from '@tanstack/react-router';
import { ComingSoon } from '../../ui/coming-soon.tsx';

export const Route = createFileRoute('/_signed-in/webhooks')({
  staticData: { screen: 'webhooks' },
  component: () => <ComingSoon screen="webhooks" />,
});
