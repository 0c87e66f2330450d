/**
 * Requests on connections of their own (no keep-alive): with WORKERS=N the kernel spreads them over
 * the workers as it would different clients', where a kept-alive connection stays with one worker.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceProcess } from './service-process.ts';

export interface FreshAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The JSON body, parsed (undefined when empty). */
  body: any;
}

/** One request on a connection of its own; `body` is sent as JSON. */
export function freshRequest(
  url: string,
  method = 'GET',
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<FreshAnswer> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  const json = data ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)) } : {};
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent: false, headers: { ...json, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** Resolves once `count` workers of `service` said they listen. */
export async function workersListening(service: ServiceProcess, count: number): Promise<void> {
  while ((service.output().match(/shop service listening/g)?.length ?? 0) < count) await sleep(100);
}
