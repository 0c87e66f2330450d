import { createFileRoute } from '@tanstack/react-router';
import { ComingSoon } from '../../ui/coming-soon.tsx';

export const Route = createFileRoute('/_signed-in/categories')({
  staticData: { screen: 'categories' },
  component: () => <ComingSoon screen="categories" />,
});
