/** A TCP server that accepts and closes, run inside a namespace. argv: <host> <port> */
import { createServer } from 'node:net';

createServer((c) => c.end()).listen(Number(process.argv[3]), process.argv[2], () =>
  process.stdout.write('ready\n'),
);
