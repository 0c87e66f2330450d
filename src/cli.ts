/**
 * `npm run cli -- <command>`: account administration from a shell, on the database the environment
 * configures (DATABASE_URL, or the embedded one in DATA_DIR — stop the service first, PGlite allows
 * one process). Passwords come from stdin (typed without echo on a terminal, or piped) or from
 * CLI_PASSWORD — never from argv, which other users can read in `ps`.
 */
import { createAdmin, createCustomer, adminIdByUsername, customerIdByUsername, setAdminDisabled, setCustomerDisabled, type AccountsContext } from './accounts/accounts.service.ts';
import { cliPasswordFromEnv, ConfigError, loadConfig } from './config/config.ts';
import { openDatabase } from './db/database.ts';
import { applyMigrations, readMigrations } from './db/migrate.ts';
import { databaseTarget } from './db/prepare.ts';
import { AppError } from './errors/app-error.ts';
import { createLogger } from './logger.ts';

const USAGE = `usage: npm run cli -- <command>

  create-admin <username>                     password from stdin or CLI_PASSWORD
  create-customer <email> [--nickname <name>] password from stdin or CLI_PASSWORD
  disable-admin <username>     enable-admin <username>
  disable-customer <email>     enable-customer <email>      (disabling revokes the customer's sessions)
`;

class UsageError extends Error {}

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

async function password(): Promise<string> {
  return cliPasswordFromEnv() ?? (await readPassword('Password: '));
}

function parseArgs(argv: string[]): { command: string; name: string; nickname?: string } {
  if (argv.some((a) => /^--?password/.test(a))) {
    throw new UsageError('passwords are never taken from the command line; pipe it on stdin or set CLI_PASSWORD');
  }
  const [command, name, ...rest] = argv;
  if (!command || !name) throw new UsageError(USAGE);
  let nickname: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--nickname' && command === 'create-customer' && rest[i + 1] !== undefined) nickname = rest[++i];
    else throw new UsageError(`unexpected argument: ${rest[i]}\n\n${USAGE}`);
  }
  return { command, name, nickname };
}

async function run(ctx: AccountsContext, args: ReturnType<typeof parseArgs>): Promise<string> {
  const { command, name, nickname } = args;
  switch (command) {
    case 'create-admin': {
      const admin = await createAdmin(ctx, { username: name, password: await password() });
      return `created admin #${admin.id} ${admin.username}`;
    }
    case 'create-customer': {
      const customer = await createCustomer(ctx, { username: name, password: await password(), nickname });
      return `created customer #${customer.id} ${customer.username}`;
    }
    case 'disable-admin':
    case 'enable-admin': {
      const disabled = command === 'disable-admin';
      const admin = await setAdminDisabled(ctx, { id: await adminIdByUsername(ctx, name), disabled });
      return `${disabled ? 'disabled' : 'enabled'} admin #${admin.id} ${admin.username}`;
    }
    case 'disable-customer':
    case 'enable-customer': {
      const disabled = command === 'disable-customer';
      const customer = await setCustomerDisabled(ctx, { id: await customerIdByUsername(ctx, name), disabled });
      return `${disabled ? 'disabled (sessions revoked)' : 'enabled'} customer #${customer.id} ${customer.username}`;
    }
    default:
      throw new UsageError(`unknown command: ${command}\n\n${USAGE}`);
  }
}

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  const config = loadConfig();
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const db = await openDatabase(databaseTarget(config));
  try {
    await applyMigrations(db.sql, await readMigrations());
    process.stdout.write(`${await run({ db, log }, args)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    if (err instanceof AppError) {
      const message = err.fieldErrors ? `invalid input:${err.fieldErrors.map((e) => `\n  ${e.field}: ${e.message}`).join('')}` : err.message;
      process.stderr.write(`${message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await db.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `cli failed: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
