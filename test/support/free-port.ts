/** A loopback port free at the moment of asking (the OS's choice), for a server a test starts itself. */
import net from 'node:net';

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}
