import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { distinctSecrets } from '../redact-credentials.js';

/** The value at a dotted path of `root` (`apiKey`, `configuration.apiKey`). */
function valueAt(root: unknown, path: string): unknown {
  let current: unknown = root;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * The credentials a LangChain chat model sends, as it declares them: LangChain models name their
 * secret fields in `lc_secrets` (a field path → the environment variable it defaults to, e.g.
 * `{ apiKey: 'OPENAI_API_KEY' }`), so this reads each field and each of those variables. A model
 * that declares none has none to redact.
 */
export function langChainCredentials(model: BaseChatModel): string[] {
  let declared: Record<string, unknown> | undefined;
  try {
    declared = (model as { lc_secrets?: Record<string, unknown> }).lc_secrets;
  } catch {
    declared = undefined; // a getter that throws declares nothing
  }
  const found: unknown[] = [];
  for (const [path, variable] of Object.entries(declared ?? {})) {
    found.push(valueAt(model, path));
    if (typeof variable === 'string' && typeof process !== 'undefined') found.push(process.env[variable]);
  }
  return distinctSecrets(found);
}
