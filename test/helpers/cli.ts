/** The CLI's commands run in-process on a test app's database (src/cli/commands.ts), as an operator would. */
import { runCli } from '../../src/cli/commands.ts';
import { createLogger } from '../../src/logger.ts';
import { operatorContext } from '../../src/request-context.ts';
import type { TestApp } from './test-app.ts';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command line on `app`'s database; `stdin`'s first line is the password it reads. */
export async function cliOn(
  app: TestApp,
  args: string[],
  opts: { stdin?: string; terminal?: boolean } = {},
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io = {
    password: async () => (opts.stdin ?? '').split('\n')[0] ?? '',
    stdout: (t: string) => void (stdout += t),
    stderr: (t: string) => void (stderr += t),
    stderrIsTerminal: opts.terminal ?? false,
  };
  const ctx = operatorContext(app.db, app.services, createLogger('silent'));
  const code = await runCli(args, io, async () => ({ ctx, close: async () => {} }));
  return { code, stdout, stderr };
}
