import { z } from 'zod';
import type { Agent } from '../../../index.js';

const Weather = z.object({ city: z.string(), tempC: z.number(), conditions: z.enum(['sunny', 'rain', 'snow']) });

export async function weatherReport(agent: Agent, render: (weather: z.infer<typeof Weather>) => void) {
  const weather = await agent.call('What is the weather in Paris?', { output: Weather });
  render(weather); // weather.tempC is a number

  agent.reply('And in Oslo?', { output: Weather }).subscribe((e) => {
    if (e.type === 'REPLY_END' && e.finishReason === 'completed') render(Weather.parse(e.output));
  });
}
