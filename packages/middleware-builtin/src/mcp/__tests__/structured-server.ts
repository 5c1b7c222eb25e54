// An MCP server on the official SDK's low-level Server class, for what McpServer never sends: a
// tool result whose structuredContent does not match the tool's outputSchema. Over stdio; run
// with tsx.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'structured', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: 'weather',
      description: 'The weather of a city, as structured data.',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      outputSchema: {
        type: 'object',
        properties: { celsius: { type: 'number' }, sky: { type: 'string' } },
        required: ['celsius', 'sky'],
      },
      annotations: { readOnlyHint: true },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, (request) => {
  const city = String(request.params.arguments?.['city']);
  // Atlantis answers with a temperature that is not a number: a result that breaks its own schema.
  const weather = city === 'Atlantis' ? { celsius: 'warm', sky: 'clear' } : { celsius: 21, sky: 'clear' };
  return { content: [{ type: 'text', text: `${city}: ${JSON.stringify(weather)}` }], structuredContent: weather };
});

void server.connect(new StdioServerTransport());
