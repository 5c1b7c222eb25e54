// The GenAI client metrics exported as OTLP/HTTP (JSON) to a receiver on loopback: what a
// collector gets from an application that registered the SDK's periodic OTLP reader.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

const WORKER = join(__dirname, '__tests__', 'fixtures', 'otlp-metrics-worker.ts');
const TSX = require.resolve('tsx/cli');

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number };
}
interface OtlpMetric {
  name: string;
  unit: string;
  histogram?: { dataPoints: { attributes: OtlpAttribute[]; count: string | number; explicitBounds: number[] }[] };
}
interface OtlpBody {
  resourceMetrics: { scopeMetrics: { scope: { name: string }; metrics: OtlpMetric[] }[] }[];
}

describe('TracingMiddleware metrics over OTLP/HTTP', () => {
  jest.setTimeout(60_000);
  let receiver: Server;
  const bodies: OtlpBody[] = [];
  let url: string;
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        if (req.url === '/v1/metrics') bodies.push(JSON.parse(raw) as OtlpBody);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/metrics`;
  });
  afterAll(() => new Promise((r) => receiver.close(r)));

  it('a collector receives the four histograms with their units, attributes and buckets', async () => {
    await new Promise<void>((resolve, reject) =>
      execFile(
        process.execPath,
        [TSX, WORKER],
        { env: { ...process.env, WORKER_OTLP_URL: url } },
        (err, _out, stderr) => (err ? reject(new Error(`worker failed: ${stderr}`)) : resolve()),
      ),
    );

    const metrics = bodies
      .flatMap((b) => b.resourceMetrics)
      .flatMap((r) => r.scopeMetrics)
      .filter((s) => s.scope.name === '@rxscope/middleware-builtin')
      .flatMap((s) => s.metrics);
    const byName = new Map(metrics.map((m) => [m.name, m]));
    expect([...byName.keys()].sort()).toEqual([
      'gen_ai.client.operation.duration',
      'gen_ai.client.operation.time_per_output_chunk',
      'gen_ai.client.operation.time_to_first_chunk',
      'gen_ai.client.token.usage',
    ]);
    expect(byName.get('gen_ai.client.token.usage')!.unit).toBe('{token}');
    const duration = byName.get('gen_ai.client.operation.duration')!;
    expect(duration.unit).toBe('s');
    const point = duration.histogram!.dataPoints[0]!;
    expect(point.explicitBounds.slice(0, 3)).toEqual([0.01, 0.02, 0.04]);
    const attrs = Object.fromEntries(point.attributes.map((a) => [a.key, a.value.stringValue ?? a.value.intValue]));
    expect(attrs).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': expect.any(String),
      'gen_ai.request.model': 'scripted-model',
    });
    const tokens = byName.get('gen_ai.client.token.usage')!.histogram!.dataPoints;
    expect(
      tokens.map((p) => p.attributes.find((a) => a.key === 'gen_ai.token.type')?.value.stringValue).sort(),
    ).toEqual(['input', 'output']);
  });
});
