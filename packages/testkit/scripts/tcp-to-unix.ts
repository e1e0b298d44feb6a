/**
 * Runs inside a network namespace: listens on 127.0.0.1:<port> there and forwards every connection
 * to a Unix socket (file-system based, so it crosses network namespaces). The test process serves
 * that socket and forwards to devcluster, so an agent in the namespace reaches the API server over
 * real HTTP without touching the machine's own network namespace.
 * argv: <port> <unix socket path> [listen address, default 127.0.0.1]
 */
import { connect, createServer } from 'node:net';

const [port, socketPath, host] = [
  Number(process.argv[2]),
  process.argv[3] ?? '',
  process.argv[4] ?? '127.0.0.1',
];
const server = createServer((inbound) => {
  const outbound = connect(socketPath);
  inbound.pipe(outbound).pipe(inbound);
  const close = () => {
    inbound.destroy();
    outbound.destroy();
  };
  inbound.on('error', close);
  outbound.on('error', close);
});
server.listen(port, host, () => process.stdout.write('ready\n'));
