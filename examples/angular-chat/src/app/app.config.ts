import { provideHttpClient, withFetch } from '@angular/common/http';
import {
  type ApplicationConfig,
  provideBrowserGlobalErrorListeners,
  provideZonelessChangeDetection,
} from '@angular/core';

export const appConfig: ApplicationConfig = {
  providers: [
    provideBrowserGlobalErrorListeners(),
    // No zone.js: signals (and toSignal over the event streams) tell Angular what changed.
    provideZonelessChangeDetection(),
    provideHttpClient(withFetch()),
  ],
};
