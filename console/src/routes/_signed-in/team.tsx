import { createFileRoute } from '@tanstack/react-router';
import { ComingSoon } from '../../ui/coming-soon.tsx';

export const Route = createFileRoute('/_signed-in/team')({
  staticData: { screen: 'team' },
  component: () => <ComingSoon screen="team" />,
});
