/**
 * Response headers every answer carries (contract §7.5), with helmet: `X-Content-Type-Options:
 * nosniff`, `Referrer-Policy: no-referrer` and the usual hardening; HTML pages (`/docs`, GraphiQL)
 * also get a Content-Security-Policy that admits only their own origin's assets.
 */
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
});

export const htmlPagePolicy = helmet.contentSecurityPolicy({
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
