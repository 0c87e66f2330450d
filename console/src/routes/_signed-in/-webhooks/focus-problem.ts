/** After the service refuses a form's input, the focus goes to the first field it names (console.md §2). */
import { type RefObject, useEffect } from 'react';

/** A field marked invalid, or the first box of a group whose problem is said under it. */
const PROBLEM = '[aria-invalid="true"], fieldset[aria-describedby] input';

export function useFocusFirstProblem(container: RefObject<HTMLElement | null>, error: unknown): void {
  useEffect(() => {
    if (error) container.current?.querySelector<HTMLElement>(PROBLEM)?.focus();
  }, [container, error]);
}
