/**
 * `npm run cli -- <command>`: account administration from a shell, on the database the environment
 * configures (DATABASE_URL, or the embedded one in DATA_DIR — stop the service first, PGlite allows
 * one process). The commands are in cli/commands.ts; this is the process around them: stdin and
 * CLI_PASSWORD, the database, exit codes.
 */
import { runCli, UsageError } from './cli/commands.ts';
import { ConfigError, cliPasswordFromEnv, loadConfig } from './config/config.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';
import { StartupError } from './errors/startup-error.ts';
import { createLogger } from './logger.ts';
import { operatorContext } from './request-context.ts';
import { openRuntime } from './runtime.ts';

/** Reads one line from stdin: without echo on a terminal, else the first line of what is piped. */
async function readPassword(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    let data = '';
    for await (const chunk of stdin) data += chunk;
    return data.split(/\r?\n/)[0] ?? '';
  }
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let value = '';
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          done();
          return resolve(value);
        }
        if (ch === '\u0003') {
          done();
          return reject(new UsageError('cancelled'));
        }
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}

const io = {
  password: async () => cliPasswordFromEnv() ?? (await readPassword('Password: ')),
  stdout: (text: string) => void process.stdout.write(text),
  stderr: (text: string) => void process.stderr.write(text),
  stderrIsTerminal: process.stderr.isTTY === true,
};

async function open() {
  const config = loadConfig();
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const runtime = await openRuntime(config, { role: 'npm run cli', prepare: 'migrations', background: false, log });
  return { ctx: operatorContext(runtime.db, runtime.services, log), close: () => runtime.close() };
}

runCli(process.argv.slice(2), io, open).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const expected = err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof StartupError;
    process.stderr.write(expected ? `${err.message}\n` : `cli failed: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
