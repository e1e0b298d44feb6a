/**
 * Runs the netlink driver in the network namespace it was started in (`ip netns exec <ns> …`) and
 * serves requests as JSON lines on stdin/stdout: {id, method: 'apply'|'plan'|'read'|'close', spec?}.
 * Netlink sockets bind to the namespace of their process, so this child is how tests (and the
 * VM suite) drive the real driver inside a namespace while the test runner stays outside.
 */
import { createInterface } from 'node:readline';
import { createNetlinkDriver, type HostSettings, type NetlinkSpec } from '@nodenet/agent';

interface Request {
  id: number;
  method: 'apply' | 'plan' | 'read' | 'close';
  spec?: NetlinkSpec;
}

const settings = JSON.parse(process.env.NODENET_TEST_SETTINGS ?? '{}') as HostSettings & {
  tableStatePath?: string;
  /** The applied checkpoint's spec an older agent left (adoption). */
  adopt?: NetlinkSpec;
};
const driver = createNetlinkDriver({
  settings,
  ...(settings.tableStatePath ? { tableStatePath: settings.tableStatePath } : {}),
  ...(settings.adopt ? { adoptable: () => Promise.resolve(settings.adopt) } : {}),
});

const mapToObject = (m: Map<string, unknown>): Record<string, unknown> => Object.fromEntries(m);

const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const req = JSON.parse(line) as Request;
  const reply = (body: Record<string, unknown>): void => {
    process.stdout.write(`${JSON.stringify({ id: req.id, ...body })}\n`);
  };
  const run = async (): Promise<unknown> => {
    switch (req.method) {
      case 'apply':
        return driver.apply(req.spec!).then((r) => ({ ...r, tables: Object.fromEntries(r.tables) }));
      case 'plan': {
        const p = await driver.plan(req.spec!);
        return {
          operations: p.operations,
          tables: Object.fromEntries(p.tables),
          current: mapToObject(p.current),
          desired: mapToObject(p.desired),
        };
      }
      case 'read':
        return mapToObject(await driver.read());
      case 'close':
        driver.close();
        rl.close();
        return null;
    }
  };
  run().then(
    (result) => reply({ result }),
    (err: Error & { code?: string }) =>
      reply({ error: { name: err.name, code: err.code, message: err.message } }),
  );
});
