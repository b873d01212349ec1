/**
 * The headers the web renderer's files are served with, wherever they are served from (`npm
 * start`, CloudFront): a strict Content-Security-Policy (scripts and styles from the page's own
 * origin only, no inline script; network calls to the page's origin and the A2A and sign-in
 * origins named), no framing, no sniffing, no referrer.
 */
export interface WebHeaderOptions {
  /** Origins the page may call besides its own (the A2A API, the Cognito domain). */
  connectTo: readonly string[];
}

export const contentSecurityPolicy = (options: WebHeaderOptions): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${["'self'", ...options.connectTo].join(' ')}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');

/** Every header but the CSP, by name (CloudFront sets some of them through typed fields). */
export const WEB_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
} as const;

export const webHeaders = (options: WebHeaderOptions): Record<string, string> => ({
  'Content-Security-Policy': contentSecurityPolicy(options),
  ...WEB_HEADERS,
});
