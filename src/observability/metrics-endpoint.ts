/**
 * Where `/metrics` is served (contract §7.7): a route of the app on the main port (development), and
 * a listener of its own on METRICS_PORT / METRICS_HOST, which a production deployment keeps off the
 * public network. Either serves whatever `text` yields: this process's registry, or the sum of every
 * worker's (cluster-metrics.ts).
 */
import { once } from 'node:events';
import http from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { Registry } from 'prom-client';
import { listenFailure } from '../errors/startup-error.ts';

/** Produces the Prometheus exposition text. */
export type MetricsText = () => Promise<string>;

/** `GET /metrics` in the app; a failure (a worker not answering) goes to the app's error layer. */
export function metricsRoute(text: MetricsText) {
  return (_req: Request, res: Response, next: NextFunction) => {
    text().then((body) => {
      res.set('Cache-Control', 'no-store').type(Registry.PROMETHEUS_CONTENT_TYPE).send(body);
    }, next);
  };
}

/** A listener serving only `GET /metrics`; resolves once it listens (a StartupError if it cannot). */
export async function listenForMetrics(port: number, host: string, text: MetricsText): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Only GET /metrics is served here.\n');
      return;
    }
    text().then(
      (body) => res.writeHead(200, { 'Content-Type': Registry.PROMETHEUS_CONTENT_TYPE }).end(body),
      (err: Error) => res.writeHead(503, { 'Content-Type': 'text/plain' }).end(`${err.message}\n`),
    );
  });
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (err) {
    throw listenFailure(err, { port, host, portVariable: 'METRICS_PORT', hostVariable: 'METRICS_HOST' });
  }
  // Never keeps a stopping process alive.
  server.unref();
  return server;
}
