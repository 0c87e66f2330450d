/**
 * The CLI's commands (`npm run cli -- <command>`, contract §8.1, §13.3): arguments parsed, the
 * account and catalogue services run in an operator's context, and one line (or table) to print.
 * Passwords come from `io.password()` — stdin or CLI_PASSWORD, never argv, which other users can read
 * in `ps`.
 * src/cli.ts is the process around it; tests run it in-process on an open database.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import {
  createAdminInput,
  createCustomerInput,
  resetPasswordInput,
  setAdminRoleInput,
} from '../accounts/accounts.schema.ts';
import {
  adminIdByUsername,
  createAdmin,
  createCustomer,
  customerIdByUsername,
  listAdmins,
  resetAdminPassword,
  resetCustomerPassword,
  setAdminDisabled,
  setAdminRole,
  setCustomerDisabled,
} from '../accounts/accounts.service.ts';
import { resetTotp } from '../accounts/admin-account.service.ts';
import { apiKeyIdByPrefix, listApiKeys, revokeApiKey } from '../accounts/api-keys.service.ts';
import { CATALOG_CHANNEL } from '../catalog/catalog-cache.ts';
import { refreshAllItemJson } from '../catalog/item-rest-json.ts';
import { AppError, validationFailed } from '../errors/app-error.ts';
import type { Admin, ApiKey } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import { reindexAll } from '../search/documents.ts';
import { maintenanceIndexerSql } from '../search/indexer-sql.ts';
import { exportItemsToFile, formatOfFileName } from '../transfer/export.file.ts';
import { type ExportInput, exportInputOf } from '../transfer/export.schema.ts';
import { type ExportCount, ExportOutdatedError } from '../transfer/export.service.ts';
import { parseInput, snakeCase } from '../validation/field-errors.ts';
import { importArgs, runImportCommand } from './import-command.ts';

export const USAGE = `usage: npm run cli -- <command>

  create-admin <username> [--role <role>]     password from stdin or CLI_PASSWORD; the role is owner for the
                                              first admin, else required: owner, catalog_manager, support, viewer
  set-role <username> <role>                  (the last enabled owner keeps the role)
  reset-totp <username>                       turn an admin's two-factor login off (a lost phone)
  create-customer <email> [--nickname <name>] password from stdin or CLI_PASSWORD
  disable-admin <username>     enable-admin <username>
  disable-customer <email>     enable-customer <email>      (disabling revokes the customer's sessions)
  reset-password customer <email>             password from stdin or CLI_PASSWORD; revokes the customer's sessions
  reset-password admin <username>             password from stdin or CLI_PASSWORD
  list-admins
  list-api-keys                revoke-api-key <prefix>
  reindex                                     rebuild every item's search document (after changes made outside the service)
  import FILE [--dry-run] [--mode upsert|create|update] [--atomic] [--format csv|jsonl]
                                              import items from a CSV or JSON Lines file (progress on stderr);
                                              exit code 1 when any item failed
  export <file> [--format csv|jsonl] [--status <state>]... [--category-id <id>] [--keyword <text>]
                [--min-price <price>] [--max-price <price>] [--in-stock] [--spec <name:value>]...
                                              write the items the filters match (all by default) to a file, as
                                              GET /admin/api/exports/items does; the format defaults from the
                                              file's extension (.jsonl: JSON Lines, else CSV)
`;

export class UsageError extends Error {}

/** A command that could not do its work for a reason outside the input's rules (a file it cannot write). */
class CommandFailed extends Error {}

/** Where a command reads its password and writes its answer. */
export interface CliIo {
  /** The password for the command: CLI_PASSWORD, or one line of stdin. */
  password(): Promise<string>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal: progress is a bar redrawn in place there, a line per 10 % elsewhere. */
  stderrIsTerminal?: boolean;
}

export interface Args {
  command: string;
  name: string;
  /** `reset-password`: whose password. */
  kind?: 'customer' | 'admin';
  nickname?: string;
  role?: string;
  /** `set-role`: the new role. */
  value?: string;
  /** `export`: its options, as given (the export's rules check them). */
  exportOptions?: ExportOptions;
}

/** `export`'s options: the format, and the admin list's filters in its REST spelling. */
interface ExportOptions {
  format?: string;
  status: string[];
  categoryId?: string;
  keyword?: string;
  minPrice?: string;
  maxPrice?: string;
  inStock?: true;
  spec: string[];
}

/** `export`'s options that take a value, and where each goes; `--status` and `--spec` may repeat. */
const EXPORT_OPTIONS = {
  '--format': 'format',
  '--category-id': 'categoryId',
  '--keyword': 'keyword',
  '--min-price': 'minPrice',
  '--max-price': 'maxPrice',
} as const;

function parseExportOptions(rest: string[]): ExportOptions {
  const options: ExportOptions = { status: [], spec: [] };
  for (let i = 0; i < rest.length; i++) {
    const option = rest[i]!;
    const value = rest[i + 1];
    if (option === '--in-stock') options.inStock = true;
    else if (value === undefined) throw new UsageError(`unexpected argument: ${option}\n\n${USAGE}`);
    else if (option === '--status') options.status.push(rest[++i]!);
    else if (option === '--spec') options.spec.push(rest[++i]!);
    else if (Object.hasOwn(EXPORT_OPTIONS, option))
      options[EXPORT_OPTIONS[option as keyof typeof EXPORT_OPTIONS]] = rest[++i];
    else throw new UsageError(`unexpected argument: ${option}\n\n${USAGE}`);
  }
  return options;
}

/**
 * The export's input from its options, by the rules the HTTP route applies to the same values; a
 * problem is named as its option (`--category-id: must be a positive integer`).
 */
function exportInputOfOptions(file: string, options: ExportOptions): ExportInput {
  const { format, status, categoryId, keyword, minPrice, maxPrice, inStock, spec } = options;
  try {
    return exportInputOf({
      format: format ?? formatOfFileName(file),
      status,
      category_id: categoryId,
      keyword,
      min_price: minPrice,
      max_price: maxPrice,
      in_stock: inStock ? 'true' : undefined,
      spec,
    });
  } catch (err) {
    if (!(err instanceof AppError) || !err.fieldErrors) throw err;
    const asOption = (field: string) => `--${snakeCase(field).replaceAll('_', '-')}`;
    throw validationFailed(err.fieldErrors.map((e) => ({ ...e, field: asOption(e.field) })));
  }
}

/** Each command's options (`--name value`), and the field of Args each one sets. */
const OPTIONS: Record<string, Record<string, 'nickname' | 'role'>> = {
  'create-customer': { '--nickname': 'nickname' },
  'create-admin': { '--role': 'role' },
};

export function parseArgs(argv: string[]): Args {
  if (argv.some((a) => /^--?password/.test(a))) {
    throw new UsageError('passwords are never taken from the command line; pipe it on stdin or set CLI_PASSWORD');
  }
  const [command, ...positional] = argv;
  if (command === 'export') {
    const [file, ...rest] = positional;
    if (!file || file.startsWith('--')) throw new UsageError(USAGE);
    return { command, name: file, exportOptions: parseExportOptions(rest) };
  }
  if (command === 'list-admins' || command === 'list-api-keys' || command === 'reindex') {
    if (positional.length) throw new UsageError(`unexpected argument: ${positional[0]}\n\n${USAGE}`);
    return { command, name: '' };
  }
  if (command === 'reset-password') {
    const [kind, name, ...rest] = positional;
    if ((kind !== 'customer' && kind !== 'admin') || !name || rest.length) throw new UsageError(USAGE);
    return { command, kind, name };
  }
  if (command === 'set-role') {
    const [name, value, ...rest] = positional;
    if (!name || !value || rest.length) throw new UsageError(USAGE);
    return { command, name, value };
  }
  const [name, ...rest] = positional;
  if (!command || !name) throw new UsageError(USAGE);
  const args: Args = { command, name };
  const options = OPTIONS[command] ?? {};
  for (let i = 0; i < rest.length; i++) {
    const field = options[rest[i]!];
    if (field && rest[i + 1] !== undefined) args[field] = rest[++i];
    else throw new UsageError(`unexpected argument: ${rest[i]}\n\n${USAGE}`);
  }
  return args;
}

/** `list-admins`: one line per account, in columns. */
const adminTable = (admins: Admin[]): string =>
  table([
    ['id', 'username', 'role', 'status', 'two_factor', 'created_at'],
    ...admins.map((a) => [
      String(a.id),
      a.username,
      a.role,
      a.disabled ? 'disabled' : 'enabled',
      a.totpSecret === null ? 'off' : 'on',
      a.createdAt.toISOString(),
    ]),
  ]);

/** `list-api-keys`: one line per key (never its secret: only the hash is kept). */
const apiKeyTable = (keys: ApiKey[]): string =>
  table([
    ['id', 'prefix', 'name', 'role', 'status', 'created_at', 'expires_at', 'last_used_at'],
    ...keys.map((k) => [
      String(k.id),
      k.prefix,
      k.name,
      k.role,
      k.revokedAt ? 'revoked' : k.expiresAt && k.expiresAt <= new Date() ? 'expired' : 'active',
      k.createdAt.toISOString(),
      k.expiresAt?.toISOString() ?? '-',
      k.lastUsedAt?.toISOString() ?? '-',
    ]),
  ]);

/** Rows as left-aligned columns, the first row the heading. */
function table(rows: string[][]): string {
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

async function run(ctx: RequestContext, args: Args, password: () => Promise<string>): Promise<string> {
  const { command, name, nickname } = args;
  switch (command) {
    case 'create-admin': {
      // The first admin runs the shop; after that, who gets what is a decision to state (contract §10.1).
      const first = (await ctx.db.prisma.admin.count()) === 0;
      if (!args.role && !first) {
        throw new UsageError(`create-admin needs --role (owner, catalog_manager, support or viewer)\n\n${USAGE}`);
      }
      const admin = await createAdmin(
        ctx,
        parseInput(createAdminInput, { username: name, password: await password(), role: args.role ?? 'owner' }),
      );
      return `created admin #${admin.id} ${admin.username} (${admin.role})`;
    }
    case 'set-role': {
      const id = await adminIdByUsername(ctx, name);
      const { role } = parseInput(setAdminRoleInput, { id, role: args.value });
      const admin = await setAdminRole(ctx, { id, role });
      return `admin #${admin.id} ${admin.username} is now ${admin.role}`;
    }
    case 'reset-totp': {
      const id = await adminIdByUsername(ctx, name);
      await resetTotp(ctx, id);
      return `two-factor login turned off for admin #${id} ${name}; they can enrol again`;
    }
    case 'list-api-keys': {
      const keys = await listApiKeys(ctx);
      return keys.length ? apiKeyTable(keys) : 'no API keys';
    }
    case 'revoke-api-key': {
      await revokeApiKey(ctx, await apiKeyIdByPrefix(ctx, name.replace(/^shk_/, '').slice(0, 8)));
      return `API key ${name} revoked`;
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
    case 'reindex': {
      // Maintenance work: a batch of a large catalogue may take longer than a request's statement limit.
      const items = await reindexAll(maintenanceIndexerSql(ctx.db.sql));
      // And every item's kept REST JSON, rewritten where it differs (catalog/item-rest-json.ts).
      await refreshAllItemJson(maintenanceIndexerSql(ctx.db.sql));
      // As after any catalogue write: this process's cache at once, every other instance through the
      // notification (which arrives asynchronously, so it cannot stand in for the first).
      ctx.services.catalogCache.invalidate();
      await ctx.db.sql.query('SELECT pg_notify($1, $2)', [CATALOG_CHANNEL, 'reindex']);
      return `search documents rebuilt for ${items} item(s)`;
    }
    case 'export': {
      const input = exportInputOfOptions(name, args.exportOptions ?? { status: [], spec: [] });
      let count: ExportCount;
      try {
        count = await exportItemsToFile(ctx, name, input);
      } catch (err) {
        // A file that cannot be written, or a catalogue that changed under a CSV's header: said in a line.
        if (err instanceof ExportOutdatedError) throw new CommandFailed(`export failed: ${err.message}`);
        if (err instanceof Error && 'syscall' in err) throw new CommandFailed(`cannot write ${name}: ${err.message}`);
        throw err;
      }
      const rows = input.format === 'csv' ? `${count.rows} CSV row(s) and the header` : `${count.rows} JSON line(s)`;
      return `exported ${count.items} item(s) as ${rows} to ${name}`;
    }
    case 'list-admins': {
      const admins = await listAdmins(ctx);
      return admins.length ? adminTable(admins) : 'no admin accounts';
    }
    default:
      throw new UsageError(`unknown command: ${command}\n\n${USAGE}`);
  }
}

/**
 * Runs one command line: exit code 0 (done), 1 (refused: invalid input, unknown account) or 2
 * (usage). `open` gives the operator's context on the configured database, opened only for a
 * command line that parses, and closed after it.
 */
export async function runCli(
  argv: string[],
  io: CliIo,
  open: () => Promise<{ ctx: RequestContext; close(): Promise<void> }>,
): Promise<number> {
  if (argv[0] === 'import') return runImport(argv.slice(1), io, open);
  let args: Args;
  try {
    args = parseArgs(argv);
  } catch (err) {
    io.stderr(`${(err as Error).message}\n`);
    return 2;
  }
  const { ctx, close } = await open();
  try {
    io.stdout(`${await run(ctx, args, () => io.password())}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`${err.message}\n`);
      return 2;
    }
    if (err instanceof CommandFailed) {
      io.stderr(`${err.message}\n`);
      return 1;
    }
    if (err instanceof AppError) {
      const message = err.fieldErrors
        ? `invalid input:${err.fieldErrors.map((e) => `\n  ${e.field}: ${e.message}`).join('')}`
        : err.message;
      io.stderr(`${message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await close();
  }
}

/** `import FILE …`: its own exit code (1 when any item failed) and progress on stderr. */
async function runImport(
  argv: string[],
  io: CliIo,
  open: () => Promise<{ ctx: RequestContext; close(): Promise<void> }>,
): Promise<number> {
  const args = importArgs(argv);
  if (typeof args === 'string') {
    io.stderr(`${args}\n\n${USAGE}`);
    return 2;
  }
  try {
    await access(args.file, constants.R_OK);
  } catch {
    io.stderr(`cannot read ${args.file}\n`);
    return 2;
  }
  const { ctx, close } = await open();
  try {
    const { text, code } = await runImportCommand(ctx, args, {
      isTTY: io.stderrIsTerminal ?? false,
      write: (t) => io.stderr(t),
    });
    io.stdout(`${text}\n`);
    return code;
  } catch (err) {
    if (err instanceof AppError) {
      io.stderr(`${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await close();
  }
}
