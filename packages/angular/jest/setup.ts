// TestBed without zone.js: the chat is signals only, as in a zoneless app.
import { setupZonelessTestEnv } from 'jest-preset-angular/setup-env/zoneless/index.js';

setupZonelessTestEnv();
