import { createConnection } from 'node:net';
import { startRedisServer } from './redis-server.js';

const roundTrip = (port: number, command: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write(command));
    socket.once('error', reject);
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString());
    });
  });

describe('startRedisServer', () => {
  it('starts a real redis-server on a free loopback port and stops it', async () => {
    const server = await startRedisServer();
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    expect(await roundTrip(server.port, 'SET k v\r\n')).toBe('+OK\r\n');
    expect(await roundTrip(server.port, 'GET k\r\n')).toBe('$1\r\nv\r\n');
    await server.stop();
    await expect(roundTrip(server.port, 'PING\r\n')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('fails (never skips) with how to install it when redis-server is missing', async () => {
    await expect(startRedisServer({ command: '/nonexistent/redis-server' })).rejects.toThrow(
      /^\/nonexistent\/redis-server could not start \(install it: apt-get install -y redis-server; npm test does when it may\): spawn \/nonexistent\/redis-server ENOENT/,
    );
  });
});
