/**
 * Response headers every answer carries (contract §7.5), with helmet: `X-Content-Type-Options:
 * nosniff`, `Referrer-Policy: no-referrer`, `X-Frame-Options: DENY` and `Cross-Origin-Resource-Policy`
 * — what means something for a JSON answer (OWASP's REST Security Cheat Sheet). Helmet's headers for
 * documents (a browsing context's isolation, DNS prefetching, IE's download and XSS filters, Flash's
 * cross-domain policies) say nothing about JSON: the HTML pages (`/docs`, GraphiQL, the front page) get
 * them with their Content-Security-Policy (htmlPagePolicy). Each header is ~1 % of a cached answer's
 * cost and ~30 bytes of every answer.
 */
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';

export const securityHeaders = helmet({
  // Only the HTML pages get a policy (htmlPagePolicy); a JSON answer has nothing to run.
  contentSecurityPolicy: false,
  referrerPolicy: { policy: 'no-referrer' },
  // The API exists to be called from storefront pages on other origins.
  crossOriginResourcePolicy: { policy: 'cross-origin' },
  crossOriginEmbedderPolicy: false,
  // TLS ends at the load balancer in front of us; HSTS is its decision (and is ignored over http).
  strictTransportSecurity: false,
  xFrameOptions: { action: 'deny' },
  // For documents only (documentHeaders below).
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});

/** Helmet's headers for documents, which every HTML page adds to those of every answer. */
const documentHeaders = helmet({
  contentSecurityPolicy: false,
  crossOriginEmbedderPolicy: false,
  crossOriginResourcePolicy: false,
  referrerPolicy: false,
  strictTransportSecurity: false,
  xContentTypeOptions: false,
  xFrameOptions: false,
});

const contentSecurityPolicy = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    workerSrc: ["'self'"],
    // Swagger UI and GraphiQL's editor set style attributes and inject <style> elements at run time.
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
});

/** An HTML page's headers: the documents' ones, and a policy admitting only this origin's assets. */
export function htmlPagePolicy(req: Request, res: Response, next: NextFunction): void {
  documentHeaders(req, res, () => contentSecurityPolicy(req, res, next));
}

/**
 * The admin console's policy (contract §15): as strict as a page can be — scripts, styles, fonts and
 * requests from this origin only, no inline script or style (Vite emits none; React sets styles
 * through the DOM, which a policy does not govern).
 */
const consoleContentSecurityPolicy = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'"],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
});

/** The console page's headers: the documents' ones and the console's policy. */
export function consolePagePolicy(req: Request, res: Response, next: NextFunction): void {
  documentHeaders(req, res, () => consoleContentSecurityPolicy(req, res, next));
}
