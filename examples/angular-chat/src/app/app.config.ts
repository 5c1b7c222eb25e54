import {
  type ApplicationConfig,
  provideBrowserGlobalErrorListeners,
  provideZonelessChangeDetection,
} from '@angular/core';
import { provideRxscope } from '@rxscope/angular';

/** This page's conversation: a new session per page load (an unguessable id the server keys its agent by). */
const sessionId = crypto.randomUUID();

export const appConfig: ApplicationConfig = {
  providers: [
    provideBrowserGlobalErrorListeners(),
    // No zone.js: the chat's signals tell Angular what changed.
    provideZonelessChangeDetection(),
    // The node-service streams one reply per POST to the session's /chat (createAgentSseHandler).
    provideRxscope({ url: `/api/sessions/${sessionId}/chat`, transport: 'sse' }),
  ],
};
