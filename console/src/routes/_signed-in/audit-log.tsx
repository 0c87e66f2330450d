import { createFileRoute } from '@tanstack/react-router';
import { ComingSoon } from '../../ui/coming-soon.tsx';

export const Route = createFileRoute('/_signed-in/audit-log')({
  staticData: { screen: 'audit-log' },
  component: () => <ComingSoon screen="audit-log" />,
});
