// TestBed without zone.js: the devtools UI is signals only, as in the zoneless app.
import { setupZonelessTestEnv } from 'jest-preset-angular/setup-env/zoneless/index.js';

setupZonelessTestEnv();
