import { createFileRoute, redirect } from '@tanstack/react-router';

export const Route = createFileRoute('/_signed-in/')({
  beforeLoad: () => {
    throw redirect({ to: '/items' });
  },
});
