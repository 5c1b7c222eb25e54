import { ChangeDetectionStrategy, Component } from '@angular/core';
import { isAgentEvent } from '@rxscope/core';

@Component({
  selector: 'chat-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `<h1>rxscope chat {{ ok }}</h1>`,
})
export class App {
  ok = isAgentEvent({});
}
