/**
 * Duplicate keys in a PATCH body, as kube-apiserver decodes each patch type
 * (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go; expectations from
 * test/integration/apiserver/field_validation_test.go): under fieldValidation=Strict a JSON, merge
 * or strategic merge patch is refused with 422 `"" is invalid: patch: Invalid value: ...: strict
 * decoding error: ...`, and nothing is written; under Warn (the default) each problem is a
 * `Warning: 299` header and the last of the equal keys wins; Ignore says nothing. Server-side
 * apply: 400 `error strict decoding YAML: ...` naming the YAML lines. The requests are hand-made
 * (kubectl and the client re-encode a patch, which drops the duplicates) but authenticated by the
 * real @kubernetes/client-node.
 */
import https from 'node:https';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { l2, startWithClients, type Clients } from './helpers.js';

interface Reply {
  status: number;
  warnings: string[];
  body: { message?: string; reason?: string; data?: Record<string, string>; spec?: unknown };
}

let c: Clients;
beforeAll(async () => {
  c = await startWithClients();
});
afterAll(() => c?.dc.stop());

/** A PATCH with the body exactly as given, authenticated from the kubeconfig by client-node. */
async function patch(kc: k8s.KubeConfig, path: string, contentType: string, body: string): Promise<Reply> {
  const url = new URL(path, kc.getCurrentCluster()!.server);
  const opts: https.RequestOptions = { method: 'PATCH', headers: { 'content-type': contentType } };
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    const req = https.request(url, opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const warnings = res.rawHeaders.filter(
          (_, i, all) => i % 2 === 1 && all[i - 1]!.toLowerCase() === 'warning',
        );
        resolve({
          status: res.statusCode ?? 0,
          warnings,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const CM = '/api/v1/namespaces/default/configmaps';

async function configMap(name: string): Promise<Record<string, string> | undefined> {
  return (await c.core.readNamespacedConfigMap({ name, namespace: 'default' })).data;
}

describe('duplicate keys in a PATCH body (kube-apiserver patch.go)', () => {
  const cases = [
    {
      type: 'merge patch',
      contentType: 'application/merge-patch+json',
      body: '{"data":{"a":"1","a":"2"}}',
      problem: 'duplicate field "data.a"',
      written: { x: '0', a: '2' },
    },
    {
      type: 'strategic merge patch',
      contentType: 'application/strategic-merge-patch+json',
      body: '{"data":{"a":"1","a":"2"}}',
      problem: 'duplicate field "data.a"',
      // kube-apiserver names the patch as Go prints the decoded map.
      value: 'map[data:map[a:2]]',
      written: { x: '0', a: '2' },
    },
    {
      type: 'JSON patch',
      contentType: 'application/json-patch+json',
      body: '[{"op":"add","path":"/data/b","path":"/data/a","value":"1"}]',
      problem: 'json patch duplicate field "[0].path"',
      written: { x: '0', a: '1' },
    },
  ];
  for (const [i, k] of cases.entries()) {
    it(`${k.type}: 422 under Strict, nothing written; a Warning: 299 by default; silence under Ignore`, async () => {
      const name = `dup-${i}`;
      await c.core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name }, data: { x: '0' } },
      });
      const strict = await patch(c.kc, `${CM}/${name}?fieldValidation=Strict`, k.contentType, k.body);
      expect(strict.status).toBe(422);
      expect(strict.body.reason).toBe('Invalid');
      expect(strict.body.message).toMatch(/^ "" is invalid: patch: Invalid value: "/);
      expect(strict.body.message!.endsWith(`": strict decoding error: ${k.problem}`)).toBe(true);
      if (k.value) expect(strict.body.message).toContain(`Invalid value: "${k.value}"`);
      expect(await configMap(name)).toEqual({ x: '0' });

      const warned = await patch(c.kc, `${CM}/${name}`, k.contentType, k.body);
      expect(warned.status).toBe(200);
      expect(warned.warnings).toEqual([`299 - ${JSON.stringify(k.problem)}`]);
      expect(warned.body.data).toEqual(k.written);

      const ignored = await patch(c.kc, `${CM}/${name}?fieldValidation=Ignore`, k.contentType, k.body);
      expect(ignored.status).toBe(200);
      expect(ignored.warnings).toEqual([]);
    });
  }

  it('server-side apply: 400 naming the YAML lines under Strict, nothing written; a warning per line by default', async () => {
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup-apply\ndata:\n  a: "1"\n  a: "2"\n';
    const url = (q: string) => `${CM}/dup-apply?fieldManager=m${q}`;
    const strict = await patch(c.kc, url('&fieldValidation=Strict'), 'application/apply-patch+yaml', body);
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe(
      'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map',
    );
    await expect(configMap('dup-apply')).rejects.toThrow();
    const warned = await patch(c.kc, url(''), 'application/apply-patch+yaml', body);
    expect(warned.status).toBe(201);
    expect(warned.warnings).toEqual(['299 - "line 7: key \\"a\\" already set in map"']);
    expect(warned.body.data).toEqual({ a: '2' });
    const ignored = await patch(c.kc, url('&fieldValidation=Ignore'), 'application/apply-patch+yaml', body);
    expect(ignored.status).toBe(200);
    expect(ignored.warnings).toEqual([]);
  });

  it('a custom resource merge patch: the patch’s duplicates, then the patched object’s unknown fields', async () => {
    const path = '/apis/network.nodenet.io/v1alpha1/layer2networkconfigurations';
    await c.custom.createClusterCustomObject({
      group: 'network.nodenet.io',
      version: 'v1alpha1',
      plural: 'layer2networkconfigurations',
      body: l2('dup'),
    });
    const r = await patch(
      c.kc,
      `${path}/dup?fieldValidation=Strict`,
      'application/merge-patch+json',
      '{"spec":{"vni":101,"vni":102,"bogus":1}}',
    );
    expect(r.status).toBe(422);
    expect(
      r.body.message!.endsWith(
        '": strict decoding error: duplicate field "spec.vni", unknown field "spec.bogus"',
      ),
    ).toBe(true);
  });
});
