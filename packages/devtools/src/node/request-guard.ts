import type { IncomingMessage } from 'node:http';
import { isLoopback } from './handler-options.js';

/** Why a request may not reach the devtools: its status, code and message. */
export interface Refusal {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

/** `localhost`, `*.localhost`, 127.0.0.0/8 and `[::1]`, with or without a port. */
function isLoopbackHost(host: string): boolean {
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  const lower = name.toLowerCase();
  return (
    lower === 'localhost' || lower.endsWith('.localhost') || lower === '[::1]' || /^127(\.\d{1,3}){3}$/.test(lower)
  );
}

/**
 * Checks who is asking before any route runs. With the default (loopback only), three ways
 * around "loopback only" are closed as well:
 * - a reverse proxy on the same machine: its requests come from 127.0.0.1 but carry forwarding
 *   headers (`Forwarded`, `X-Forwarded-For`, `X-Real-IP`), so they are refused;
 * - DNS rebinding: a web page whose name now resolves to 127.0.0.1 sends its own name as `Host`,
 *   so a `Host` that is not a loopback name is refused;
 * - a cross-site request from a page the developer has open: a request that changes something
 *   (anything but GET and HEAD) must come from the devtools' own origin and be JSON, which a form
 *   of another site cannot send without the browser asking first.
 * With `allow`, the first two are the user's to decide (a proxy or a name is then expected); the
 * third always holds.
 */
export function refusalOf(
  req: IncomingMessage,
  allowed: (remoteAddress: string) => boolean,
  widened: boolean,
): Refusal | undefined {
  const address = req.socket?.remoteAddress ?? '';
  const forbidden = (message: string): Refusal => ({ status: 403, code: 'devtools_forbidden', message });
  if (!allowed(address))
    return forbidden('The devtools answer loopback clients only; list other addresses in the "allow" option.');
  if (!widened && isLoopback(address)) {
    const forwarded = FORWARDING_HEADERS.find((name) => req.headers[name] !== undefined);
    if (forwarded)
      return forbidden(
        `The request came through a proxy (it carries "${forwarded}"), so its client is not on loopback. ` +
          'Put the devtools behind your own authentication and say who may reach them in the "allow" option.',
      );
    const host = req.headers.host ?? '';
    if (!isLoopbackHost(host))
      return forbidden(
        `The request names the host "${host.slice(0, 100)}", not a loopback name (localhost, 127.0.0.1, [::1]); ` +
          'it is refused against DNS rebinding. Use a loopback name, or say who may reach the devtools in the "allow" option.',
      );
  }
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return undefined;
  const origin = req.headers.origin;
  if (origin !== undefined && originHost(origin) !== (req.headers.host ?? '').toLowerCase())
    return forbidden(`A request from another site (${origin.slice(0, 100)}) may not change anything in the devtools.`);
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
    return {
      status: 415,
      code: 'devtools_json_only',
      message: 'The devtools take JSON only: send "content-type: application/json".',
    };
  return undefined;
}

function originHost(origin: string): string | undefined {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return undefined;
  }
}
