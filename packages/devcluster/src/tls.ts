/**
 * A self-signed serving certificate, made at start for `--authorization-mode RBAC`. Serving TLS
 * there is not decoration: kubectl (client-go's clientcmd) sends a kubeconfig's token and its
 * `--as` impersonation only to an https server, so an authenticating server must speak TLS.
 *
 * Node has no API to create X.509 certificates, so the few DER structures of one (RFC 5280) are
 * written here: ECDSA P-256, subjectAltName 127.0.0.1 / ::1 / localhost / the listen address.
 * Clients connect with `insecure-skip-tls-verify` as over plain HTTP, so the certificate proves
 * nothing and needs no CA; it only carries the key of the TLS session.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';

const tlv = (tag: number, ...parts: Buffer[]): Buffer => {
  const body = Buffer.concat(parts);
  const n = body.length;
  const len =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
};
const seq = (...parts: Buffer[]): Buffer => tlv(0x30, ...parts);
const set = (...parts: Buffer[]): Buffer => tlv(0x31, ...parts);

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [a * 40 + b];
  for (const v of rest) {
    const chunk = [v & 0x7f];
    for (let x = v >>> 7; x > 0; x >>>= 7) chunk.unshift((x & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** A positive INTEGER from big-endian bytes (a leading zero where the high bit is set). */
const integer = (bytes: Buffer): Buffer =>
  tlv(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);

function utcTime(d: Date): Buffer {
  const p = (n: number): string => String(n).padStart(2, '0');
  const s = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return tlv(0x17, Buffer.from(s, 'ascii'));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head = '', tail = ''] = ip.split('::');
  const groups = (s: string): number[] => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const h = groups(head);
  const t = groups(tail);
  const all = ip.includes('::') ? [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t] : h;
  return Buffer.from(all.flatMap((g) => [g >> 8, g & 0xff]));
}

export interface ServingCert {
  key: string;
  cert: string;
}

/** A fresh key and self-signed certificate for `hosts` (IP addresses or DNS names). */
export function selfSignedCert(hosts: string[], now = new Date()): ServingCert {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const name = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from('nodenet-devcluster')))));
  const ecdsaSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const altNames = [...new Set(['127.0.0.1', '::1', 'localhost', ...hosts])].map((h) =>
    isIP(h) ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h, 'ascii')),
  );
  const extensions = tlv(
    0xa3,
    seq(
      seq(oid('2.5.29.17'), tlv(0x04, seq(...altNames))),
      // keyUsage digitalSignature, critical; extKeyUsage serverAuth
      seq(oid('2.5.29.15'), tlv(0x01, Buffer.from([0xff])), tlv(0x04, tlv(0x03, Buffer.from([0x07, 0x80])))),
      seq(oid('2.5.29.37'), tlv(0x04, seq(oid('1.3.6.1.5.5.7.3.1')))),
    ),
  );
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f;
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))), // v3
    integer(serial),
    ecdsaSha256,
    name,
    seq(utcTime(new Date(now.getTime() - 3600_000)), utcTime(new Date(now.getTime() + 365 * 86400_000))),
    name,
    spki,
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, ecdsaSha256, tlv(0x03, Buffer.from([0]), signature));
  const pem = der.toString('base64').replace(/.{64}/g, '$&\n').trimEnd();
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    cert: `-----BEGIN CERTIFICATE-----\n${pem}\n-----END CERTIFICATE-----\n`,
  };
}
