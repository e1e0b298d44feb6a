/**
 * A node selector that matches no node (issue 27, item 6): the configurator writes `Selected=False`,
 * reason `NoNodeMatches`, naming the selector, next to `Accepted` and `Applied`, and `Selected=True`
 * once a node is labelled to match; an input without a selector gets no `Selected`. devcluster, the
 * real configurator, simulated agents.
 */
import type { Condition } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { fleetOnRevision1, layer2, nodeName, useFleet, waitFor } from './harness.js';

const f = useFleet();
const condition = async (name: string, type: string): Promise<Condition | undefined> =>
  (await f.clients.layer2.get(name)).status?.conditions?.find((c) => c.type === type);

describe('Selected on inputs', () => {
  it('a selector that matches no node reads Selected=False NoNodeMatches with a Warning Event; labelling a node clears it', async () => {
    await fleetOnRevision1(f, 2, {}, { labels: () => ({ rack: 'r1' }) });
    await f.clients.layer2.create(layer2('typo', 300, { nodeSelector: { matchLabels: { rack: 'r9' } } }));
    const none = await waitFor('typo Selected=False', async () => {
      const c = await condition('typo', 'Selected');
      return c?.status === 'False' ? c : undefined;
    });
    expect(none).toMatchObject({
      reason: 'NoNodeMatches',
      message: 'nodeSelector rack=r9 matches none of the 2 node(s)',
      observedGeneration: 1,
    });
    const events = (await f.clients.event.list({ namespace: 'default' })).items;
    expect(
      events.find((e) => e.reason === 'NoNodeMatches' && e.involvedObject.name === 'typo'),
    ).toMatchObject({
      type: 'Warning',
      message: 'nodeSelector rack=r9 matches none of the 2 node(s)',
    });
    // Written with the other input conditions; an input without a selector has none.
    expect(await condition('typo', 'Accepted')).toMatchObject({ status: 'True' });
    expect(await condition('blue', 'Selected')).toBeUndefined();

    await f.clients.node.mergePatch(nodeName(1), { metadata: { labels: { rack: 'r9' } } });
    const matched = await waitFor('typo Selected=True', async () => {
      const c = await condition('typo', 'Selected');
      return c?.status === 'True' ? c : undefined;
    });
    expect(matched.reason).toBe('NodesMatch');
  });
});
