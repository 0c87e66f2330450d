/**
 * `npm run cli -- <command>`: account administration from a shell, on the database the environment
 * configures (DATABASE_URL, or the embedded one in DATA_DIR — stop the service first, PGlite allows
 * one process). Passwords come from stdin (typed without echo on a terminal, or piped) or from
 * CLI_PASSWORD — never from argv, which other users can read in `ps`.
 */
import { createAdminInput, createCustomerInput, resetPasswordInput } from './accounts/accounts.schema.ts';
import {
  adminIdByUsername,
  createAdmin,
  createCustomer,
  customerIdByUsername,
  listAdmins,
  resetAdminPassword,
  resetCustomerPassword,
  setAdminDisabled,
  setCustomerDisabled,
} from './accounts/accounts.service.ts';
import { ConfigError, cliPasswordFromEnv, loadConfig } from './config/config.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';
import { AppError } from './errors/app-error.ts';
import { StartupError } from './errors/startup-error.ts';
import type { Admin } from './generated/prisma/client.ts';
import { createLogger } from './logger.ts';
import { operatorContext, type RequestContext } from './request-context.ts';
import { openRuntime } from './runtime.ts';
import { parseInput } from './validation/field-errors.ts';

const USAGE = `usage: npm run cli -- <command>

  create-admin <username>                     password from stdin or CLI_PASSWORD
  create-customer <email> [--nickname <name>] password from stdin or CLI_PASSWORD
  disable-admin <username>     enable-admin <username>
  disable-customer <email>     enable-customer <email>      (disabling revokes the customer's sessions)
  reset-password customer <email>             password from stdin or CLI_PASSWORD; revokes the customer's sessions
  reset-password admin <username>             password from stdin or CLI_PASSWORD
  list-admins
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

interface Args {
  command: string;
  name: string;
  /** `reset-password`: whose password. */
  kind?: 'customer' | 'admin';
  nickname?: string;
}

function parseArgs(argv: string[]): Args {
  if (argv.some((a) => /^--?password/.test(a))) {
    throw new UsageError('passwords are never taken from the command line; pipe it on stdin or set CLI_PASSWORD');
  }
  const [command, ...positional] = argv;
  if (command === 'list-admins') {
    if (positional.length) throw new UsageError(`unexpected argument: ${positional[0]}\n\n${USAGE}`);
    return { command, name: '' };
  }
  if (command === 'reset-password') {
    const [kind, name, ...rest] = positional;
    if ((kind !== 'customer' && kind !== 'admin') || !name || rest.length) throw new UsageError(USAGE);
    return { command, kind, name };
  }
  const [name, ...rest] = positional;
  if (!command || !name) throw new UsageError(USAGE);
  let nickname: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--nickname' && command === 'create-customer' && rest[i + 1] !== undefined) nickname = rest[++i];
    else throw new UsageError(`unexpected argument: ${rest[i]}\n\n${USAGE}`);
  }
  return { command, name, nickname };
}

/** `list-admins`: one line per account, in columns. */
function adminTable(admins: Admin[]): string {
  const rows = [
    ['id', 'username', 'role', 'status', 'created_at'],
    ...admins.map((a) => [
      String(a.id),
      a.username,
      a.role,
      a.disabled ? 'disabled' : 'enabled',
      a.createdAt.toISOString(),
    ]),
  ];
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, col) => cell.padEnd(widths[col]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function run(ctx: RequestContext, args: Args): Promise<string> {
  const { command, name, nickname } = args;
  switch (command) {
    case 'create-admin': {
      const admin = await createAdmin(
        ctx,
        parseInput(createAdminInput, { username: name, password: await password() }),
      );
      return `created admin #${admin.id} ${admin.username}`;
    }
    case 'create-customer': {
      const customer = await createCustomer(
        ctx,
        parseInput(createCustomerInput, { username: name, password: await password(), nickname }),
      );
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
    case 'reset-password': {
      // The account is looked up first, so a typo is reported before a password is asked for.
      if (args.kind === 'admin') {
        const id = await adminIdByUsername(ctx, name);
        const { password: newPassword } = parseInput(resetPasswordInput, { password: await password() });
        const admin = await resetAdminPassword(ctx, id, newPassword);
        return `password reset for admin #${admin.id} ${admin.username}`;
      }
      const id = await customerIdByUsername(ctx, name);
      const { password: newPassword } = parseInput(resetPasswordInput, { password: await password() });
      const customer = await resetCustomerPassword(ctx, id, newPassword);
      return `password reset for customer #${customer.id} ${customer.username} (sessions revoked)`;
    }
    case 'list-admins': {
      const admins = await listAdmins(ctx);
      return admins.length ? adminTable(admins) : 'no admin accounts';
    }
    default:
      throw new UsageError(`unknown command: ${command}\n\n${USAGE}`);
  }
}

async function main(): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  const config = loadConfig();
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const runtime = await openRuntime(config, { role: 'npm run cli', prepare: 'migrations', log });
  try {
    process.stdout.write(`${await run(operatorContext(runtime.db, runtime.services, log), args)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    if (err instanceof AppError) {
      const message = err.fieldErrors
        ? `invalid input:${err.fieldErrors.map((e) => `\n  ${e.field}: ${e.message}`).join('')}`
        : err.message;
      process.stderr.write(`${message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await runtime.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const expected = err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof StartupError;
    process.stderr.write(expected ? `${err.message}\n` : `cli failed: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
