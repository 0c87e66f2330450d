/**
 * Start-up failures an operator can fix, said in one line that names the variable to change
 * (`PORT 3000 is in use — set PORT`). src/server.ts prints these without a stack trace.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}

export interface ListenTarget {
  port: number;
  host: string;
  portVariable: string;
  hostVariable: string;
}

/** The service's own port, as PORT and HOST configure it. */
export const servicePort = (config: { port: number; host: string }): ListenTarget => ({
  port: config.port,
  host: config.host,
  portVariable: 'PORT',
  hostVariable: 'HOST',
});

/** A listen error as a StartupError when its cause is the configured port or host; else as it is. */
export function listenFailure(err: unknown, t: ListenTarget): unknown {
  switch ((err as NodeJS.ErrnoException | undefined)?.code) {
    case 'EADDRINUSE':
      return new StartupError(`${t.portVariable} ${t.port} is in use — set ${t.portVariable}`);
    case 'EACCES':
      return new StartupError(
        `${t.portVariable} ${t.port} needs privileges this process does not have — set ${t.portVariable} (1024 or above)`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartupError(`${t.hostVariable} ${t.host} is not an address of this machine — set ${t.hostVariable}`);
    default:
      return err;
  }
}
