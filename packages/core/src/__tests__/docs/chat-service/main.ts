import { OpenAIChatModel } from '../../../model/openai/index.js'; // npm install @langchain/openai @langchain/core
import { chatService } from './service.js';

const model = new OpenAIChatModel({
  model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini',
  apiKey: process.env.OPENAI_API_KEY,
  baseURL: process.env.OPENAI_BASE_URL, // any OpenAI-compatible server; unset: OpenAI's
});
const { server } = chatService(model);
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${port}`);
});
