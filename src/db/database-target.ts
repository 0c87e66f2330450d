/** Which database a process opens, from the configuration. */
import type { Config } from '../config/config.ts';
import type { DatabaseTarget } from './database.ts';

/** The database the configuration names; `role` says who opens it (the embedded database's lock). */
export function databaseTarget(config: Config, role = 'server'): DatabaseTarget {
  return config.database.kind === 'postgres'
    ? {
        kind: 'postgres',
        url: config.database.url,
        poolSize: config.poolSize,
        statementTimeoutMs: config.statementTimeoutMs,
        replicaUrls: config.replicaUrls,
      }
    : {
        kind: 'pglite',
        dataDir: config.dataDir,
        role,
        statementTimeoutMs: config.statementTimeoutMs,
        lockStaleAfterMs: config.dataDirStaleAfterMs,
      };
}
