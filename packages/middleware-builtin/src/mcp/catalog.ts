import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type GetPromptResult,
  type Prompt,
  PromptListChangedNotificationSchema,
  type ReadResourceResult,
  type Resource,
  ResourceListChangedNotificationSchema,
  type ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * One server's resources, resource templates and prompts, read at connection (every page) when
 * the server declares them, and read again when it announces that a list changed.
 *
 * @example
 * ```ts
 * const catalog = await McpCatalog.open(client, (e) => console.warn(e));
 * catalog.resources.map((r) => r.uri);
 * ```
 */
export class McpCatalog {
  private currentResources: readonly Resource[] = [];
  private currentTemplates: readonly ResourceTemplate[] = [];
  private currentPrompts: readonly Prompt[] = [];
  private refreshing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly client: Client,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Reads the lists the server declares and follows their changes. */
  static async open(client: Client, onError: (error: Error) => void): Promise<McpCatalog> {
    const catalog = new McpCatalog(client, onError);
    const capabilities = client.getServerCapabilities();
    if (capabilities?.resources) {
      client.setNotificationHandler(ResourceListChangedNotificationSchema, () => catalog.refresh('resources'));
      await catalog.readResources();
    }
    if (capabilities?.prompts) {
      client.setNotificationHandler(PromptListChangedNotificationSchema, () => catalog.refresh('prompts'));
      await catalog.readPrompts();
    }
    return catalog;
  }

  /** The server's resources as it last listed them. */
  get resources(): readonly Resource[] {
    return this.currentResources;
  }

  /** The server's resource templates (URI templates such as `file:///{path}`). */
  get templates(): readonly ResourceTemplate[] {
    return this.currentTemplates;
  }

  /** The server's prompts as it last listed them. */
  get prompts(): readonly Prompt[] {
    return this.currentPrompts;
  }

  /** True when the server declares resources (so its resources can be read). */
  get hasResources(): boolean {
    return this.client.getServerCapabilities()?.resources !== undefined;
  }

  /** Reads one resource (a listed one, one from a template, a link a tool returned). */
  read(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    return this.client.readResource({ uri }, signal ? { signal } : undefined);
  }

  /** Gets one prompt with its arguments. */
  prompt(name: string, args: Readonly<Record<string, string>>): Promise<GetPromptResult> {
    return this.client.getPrompt({ name, arguments: { ...args } });
  }

  private refresh(what: 'resources' | 'prompts'): Promise<void> {
    this.refreshing = this.refreshing.then(async () => {
      try {
        await (what === 'resources' ? this.readResources() : this.readPrompts());
      } catch (e) {
        this.onError(new Error(`the changed ${what} list could not be read`, { cause: e }));
      }
    });
    return this.refreshing;
  }

  private async readResources(): Promise<void> {
    const resources: Resource[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listResources(cursor === undefined ? undefined : { cursor });
      resources.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const templates: ResourceTemplate[] = [];
    cursor = undefined;
    do {
      const page = await this.client.listResourceTemplates(cursor === undefined ? undefined : { cursor });
      templates.push(...page.resourceTemplates);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    this.currentResources = resources;
    this.currentTemplates = templates;
  }

  private async readPrompts(): Promise<void> {
    const prompts: Prompt[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listPrompts(cursor === undefined ? undefined : { cursor });
      prompts.push(...page.prompts);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    this.currentPrompts = prompts;
  }
}
