// A certificate authority made for one run: its certificate is written where the harness
// under test is told to trust it (for that run only); its keys stay in this process's
// memory, so nothing the implementation can read lets it mint a certificate we would accept.
// X.509 encoding is @peculiar/x509's (over Node's webcrypto), not ours.
import 'reflect-metadata';
import { webcrypto, randomBytes } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A server certificate and its key, PEM, for node:https. */
export interface ServerIdentity {
  cert: string;
  key: string;
}

export interface RunCa {
  /** The CA certificate (PEM): the only thing that leaves the process. */
  readonly certPem: string;
  /** A leaf for 127.0.0.1 and localhost, signed by this CA. */
  issueServer(): Promise<ServerIdentity>;
}

const serial = (): string => {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f; // positive
  return b.toString('hex');
};

async function keyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key as unknown as webcrypto.CryptoKey);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

/** A self-signed certificate for `keys`, valid a day either side of `now`, with a unique name. */
function selfSigned(
  keys: CryptoKeyPair,
  name: string,
  now: number,
  extensions: x509.Extension[],
): Promise<x509.X509Certificate> {
  return x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name} ${randomBytes(4).toString('hex')}`,
    // Backdated a little: clocks of the harness and the runner need not agree to the second.
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + DAY_MS),
    keys,
    signingAlgorithm: ALG,
    extensions,
  });
}

/** A new CA (one per run, or one per "untrusted" stranger). */
export async function createRunCa(name = 'ahp-conformance run CA'): Promise<RunCa> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  const now = Date.now();
  const ca = await selfSigned(keys, name, now, [
    new x509.BasicConstraintsExtension(true, 0, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
  ]);
  return {
    certPem: ca.toString('pem'),
    issueServer: async () => {
      const leafKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: 'CN=127.0.0.1',
        issuer: ca.subject,
        notBefore: new Date(now - DAY_MS),
        notAfter: new Date(now + DAY_MS),
        signingKey: keys.privateKey,
        publicKey: leafKeys.publicKey,
        signingAlgorithm: ALG,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension([
            { type: 'ip', value: '127.0.0.1' },
            { type: 'dns', value: 'localhost' },
          ]),
          await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey),
        ],
      });
      return { cert: leaf.toString('pem'), key: await keyPem(leafKeys.privateKey) };
    },
  };
}

/**
 * A self-signed certificate for `keys` (base64 DER, as a JOSE x5c entry carries it): what a
 * forger puts in a token's x5c header. It chains to no trusted root.
 */
export async function selfSignedDer(keys: CryptoKeyPair, name = 'ahp-conformance forger'): Promise<string> {
  const cert = await selfSigned(keys, name, Date.now(), [
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
  ]);
  return Buffer.from(cert.rawData).toString('base64');
}
