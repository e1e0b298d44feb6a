/**
 * A self-signed serving certificate, made at start for `--authorization-mode RBAC`. Serving TLS
 * there is not decoration: kubectl (client-go's clientcmd) sends a kubeconfig's token and its
 * `--as` impersonation only to an https server, so an authenticating server must speak TLS.
 *
 * A CA signs it, and the kubeconfigs carry that CA (`certificate-authority-data`), so clients
 * verify the server as they verify kube-apiserver: a token is only ever sent to the server that
 * holds the key. The CA is made at the first start; with `--data-dir` it is kept there (0600) so
 * that kubeconfigs written before a restart stay valid, as the tokens in them do.
 *
 * Node has no API to create X.509 certificates, so the few DER structures of one (RFC 5280) are
 * written here: ECDSA P-256; the CA with basicConstraints CA and keyCertSign; the serving
 * certificate with subjectAltName 127.0.0.1 / ::1 / localhost / the given hosts, serverAuth, and
 * key identifiers linking the two.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  type KeyObject,
} from 'node:crypto';
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

export interface ServingCerts {
  /** Key and certificate the server presents. */
  serving: ServingCert;
  /** The CA certificate (PEM) that signed it: what clients trust. */
  ca: string;
}

const pem = (der: Buffer): string =>
  `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').trimEnd()}\n-----END CERTIFICATE-----\n`;
const commonName = (cn: string): Buffer => seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(cn)))));
const ecdsaSha256 = seq(oid('1.2.840.10045.4.3.2'));
const CRITICAL = tlv(0x01, Buffer.from([0xff]));
const extension = (id: string, value: Buffer, critical = false): Buffer =>
  critical ? seq(oid(id), CRITICAL, tlv(0x04, value)) : seq(oid(id), tlv(0x04, value));

interface KeyPair {
  privateKey: KeyObject;
  spki: Buffer;
  /** RFC 5280 key identifier: SHA-1 of the public key (the uncompressed P-256 point). */
  id: Buffer;
}

function keyPairOf(privateKey: KeyObject): KeyPair {
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  return {
    privateKey,
    spki,
    id: createHash('sha1')
      .update(spki.subarray(spki.length - 65))
      .digest(),
  };
}
const keyPair = (): KeyPair => keyPairOf(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);

/** A CA: its certificate and key (PEM). */
export interface CertificateAuthority {
  cert: string;
  key: string;
}

const CA_NAME = commonName('nodenet-devcluster-ca');

/** A fresh CA (ECDSA P-256, basicConstraints CA, keyCertSign). */
export function newCertificateAuthority(now = new Date()): CertificateAuthority {
  const caKey = keyPair();
  const ca = certificate(
    { name: CA_NAME, key: caKey },
    { name: CA_NAME, key: caKey },
    [
      extension('2.5.29.19', seq(tlv(0x01, Buffer.from([0xff]))), true), // basicConstraints CA
      extension('2.5.29.15', tlv(0x03, Buffer.from([0x01, 0x06])), true), // keyCertSign, cRLSign
    ],
    now,
  );
  return { cert: pem(ca), key: caKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** A certificate's subject or issuer: its distinguished name and its key. */
interface Party {
  name: Buffer;
  key: KeyPair;
}

function certificate(subjectParty: Party, issuerParty: Party, extensions: Buffer[], now: Date): Buffer {
  const { name: subject, key: subjectKey } = subjectParty;
  const { name: issuer, key: issuerKey } = issuerParty;
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x40; // positive, and no leading zero byte (minimal DER)
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))), // v3
    integer(serial),
    ecdsaSha256,
    issuer,
    seq(utcTime(new Date(now.getTime() - 3600_000)), utcTime(new Date(now.getTime() + 365 * 86400_000))),
    subject,
    subjectKey.spki,
    tlv(
      0xa3,
      seq(
        ...extensions,
        extension('2.5.29.14', tlv(0x04, subjectKey.id)), // subjectKeyIdentifier
        extension('2.5.29.35', seq(tlv(0x80, issuerKey.id))), // authorityKeyIdentifier
      ),
    ),
  );
  return seq(tbs, ecdsaSha256, tlv(0x03, Buffer.from([0]), sign('sha256', tbs, issuerKey.privateKey)));
}

/** A serving certificate for `hosts` (IP addresses or DNS names), signed by `authority` (a new CA by default). */
export function servingCertificates(
  hosts: string[],
  authority: CertificateAuthority = newCertificateAuthority(),
  now = new Date(),
): ServingCerts {
  const caKey = keyPairOf(createPrivateKey(authority.key));
  const key = keyPair();
  const altNames = [...new Set(['127.0.0.1', '::1', 'localhost', ...hosts])].map((h) =>
    isIP(h) ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h, 'ascii')),
  );
  const cert = certificate(
    { name: commonName('nodenet-devcluster'), key },
    { name: CA_NAME, key: caKey },
    [
      extension('2.5.29.17', seq(...altNames)),
      extension('2.5.29.19', seq(), true), // not a CA
      extension('2.5.29.15', tlv(0x03, Buffer.from([0x07, 0x80])), true), // digitalSignature
      extension('2.5.29.37', seq(oid('1.3.6.1.5.5.7.3.1'))), // serverAuth
    ],
    now,
  );
  return {
    serving: { key: key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), cert: pem(cert) },
    ca: authority.cert,
  };
}
