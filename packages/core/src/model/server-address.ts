/** Where a model's requests go, as OpenTelemetry's `server.address` and `server.port` name it. */
export interface ServerAddress {
  readonly serverAddress?: string;
  readonly serverPort?: number;
}

/**
 * The host and port of a base URL (the scheme's default port when it names none; an IPv6 host
 * without its brackets); empty for a URL that does not parse.
 *
 * @example
 * ```ts
 * serverAddressOf('http://localhost:11434/v1'); // { serverAddress: 'localhost', serverPort: 11434 }
 * serverAddressOf('https://api.openai.com/v1'); // { serverAddress: 'api.openai.com', serverPort: 443 }
 * ```
 */
export function serverAddressOf(base: string): ServerAddress {
  try {
    const url = new URL(base);
    const port = url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443;
    return { serverAddress: url.hostname.replace(/^\[|\]$/g, ''), serverPort: port };
  } catch {
    return {};
  }
}
