import { addNetns, delNetns, startDriver, ipIn } from '/work/main/test/host-netlink/netns.js';
const ns = 'nnnl-smoke';
delNetns(ns);
addNetns(ns);
const d = startDriver(ns, { vtepAddress: '10.50.0.1' });
const spec = {
  vrf: [],
  routingTable: [],
  layer2: [
    {
      name: 'a',
      id: 100,
      mtu: 1500,
      vni: 1100,
      anycastMac: '02:00:00:00:00:01',
      anycastGateways: ['10.1.0.1/24', '2001:DB8::1/64'],
      advertiseNeighbors: false,
      createMacVLANInterface: true,
      neighSuppression: true,
    },
    {
      name: 'b',
      id: 200,
      mtu: 9000,
      vni: 1200,
      anycastGateways: [],
      advertiseNeighbors: false,
      createMacVLANInterface: false,
      neighSuppression: false,
    },
  ],
};
try {
  console.log(JSON.stringify(await d.apply(spec)).slice(0, 3000));
  console.log(ipIn(ns, ['-d', 'link']));
  console.log(ipIn(ns, ['addr']));
  console.log(JSON.stringify(await d.plan(spec)));
} catch (e) {
  console.log('ERR', e);
}
await d.close();
delNetns(ns);
