/**
 * Where a webhook may deliver (contract §14.2): `https://` URLs (`http://` too with WEBHOOK_ALLOW_HTTP),
 * and never to a loopback, private, link-local, multicast or otherwise non-public address unless
 * WEBHOOK_ALLOW_PRIVATE — checked when the webhook is created or changed, and again at every attempt,
 * where the check is the connection's own DNS lookup: the request goes to exactly the address that was
 * checked (a name that resolves differently the next time — DNS rebinding — cannot slip between the
 * check and the connection). Addresses are classified by ipaddr.js, not by hand-written ranges.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface DestinationRules {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** Why a URL may not be a webhook's; undefined when its form is acceptable (its host is checked apart). */
export function urlProblem(url: string, rules: DestinationRules): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && !(rules.allowHttp && parsed.protocol === 'http:'))
    return rules.allowHttp ? 'must be an https:// or http:// URL' : 'must be an https:// URL';
  if (parsed.username || parsed.password) return 'must not hold a user name or password';
  if (parsed.hash) return 'must not have a #fragment';
  return undefined;
}

/** Whether `address` is one the public internet routes to a single host (ipaddr.js's `unicast` range). */
export function isPublicAddress(address: string): boolean {
  let parsed = ipaddr.parse(address);
  // ::ffff:10.0.0.1 is 10.0.0.1.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

export class RefusedDestination extends Error {
  override name = 'RefusedDestination';
  constructor(readonly address: string) {
    super(`resolves to a non-public address (${address}); WEBHOOK_ALLOW_PRIVATE=true allows it`);
  }
}

/** The host of a URL as DNS knows it (`[::1]` → `::1`). */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** Every address `host` resolves to (a literal address: itself). */
function resolve(host: string): Promise<LookupAddress[]> {
  if (isIP(host)) return Promise.resolve([{ address: host, family: isIP(host) }]);
  return new Promise((done, fail) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? fail(err) : done(addresses))),
  );
}

/**
 * Checks the host of `url` now: undefined when every address it resolves to may be delivered to,
 * otherwise why not (it does not resolve, or one address is not public).
 */
export async function hostProblem(url: string, rules: DestinationRules): Promise<string | undefined> {
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(hostOf(new URL(url)));
  } catch {
    return 'has a host name that does not resolve';
  }
  if (rules.allowPrivate) return undefined;
  const refused = addresses.find((a) => !isPublicAddress(a.address));
  return refused ? new RefusedDestination(refused.address).message : undefined;
}

/**
 * A host written as an address (`https://127.0.0.1/…`) is connected to without any lookup, so it is
 * checked here, before the connection: the RefusedDestination, or undefined.
 */
export function refusedLiteral(url: URL, rules: DestinationRules): RefusedDestination | undefined {
  const host = hostOf(url);
  if (rules.allowPrivate || !isIP(host) || isPublicAddress(host)) return undefined;
  return new RefusedDestination(host);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node's http(s) `request`: resolves as the system does and refuses the connection
 * (RefusedDestination) when any answer is not public — so every attempt checks the name afresh.
 */
export function checkedLookup(rules: DestinationRules) {
  return (host: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolve(host).then(
      (addresses) => {
        const refused = rules.allowPrivate ? undefined : addresses.find((a) => !isPublicAddress(a.address));
        if (refused) return callback(new RefusedDestination(refused.address), options.all ? [] : '', 0);
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, options.all ? [] : '', 0),
    );
  };
}
