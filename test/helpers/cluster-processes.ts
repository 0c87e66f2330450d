/**
 * The processes of a service cluster as Linux shows them (/proc): a primary's children, and which of
 * them is its background process (src/process/background.ts) — for the tests and the bench alike.
 */
import { readFileSync } from 'node:fs';
import { BACKGROUND_ROLE, PROCESS_ROLE_ENV } from '../../src/process/process-role.ts';

/** The pids of a process's children. */
export const childrenOf = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

/** Whether `pid` is a service's background process: the primary forked it with the role in its environment. */
export function isBackgroundProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${PROCESS_ROLE_ENV}=${BACKGROUND_ROLE}`);
  } catch {
    return false;
  }
}
