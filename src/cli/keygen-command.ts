// `ahp-conformance keygen <prefix>`: an ed25519 key pair for signing attestations
// (`run --sign-key <prefix>.key`, `verify --key <prefix>.pub`). The private key is created
// owner-only and never over an existing file (nor through a link planted at its name).
import { generateKeyPairSync } from 'node:crypto';
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { keyId } from '../results/attestation.js';
import { UsageError } from './args.js';
import { EXIT, type Io } from './io.js';
import { show } from './acceptance.js';
import { terminalLine } from '../terminal.js';

/** Create `path` with `text`, failing when anything (a file, a link) is there already. */
function createNew(path: string, text: string, mode: number): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', mode);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'EEXIST'
        ? `keygen: ${path} exists; not overwritten (choose another prefix)`
        : `keygen: ${path} cannot be created (${code ?? 'error'})`,
    );
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

export function keygenCommand(rest: string[], io: Io): number {
  if (rest.length !== 1)
    throw new UsageError(
      'keygen takes one prefix: ahp-conformance keygen <prefix> (writes <prefix>.key and <prefix>.pub)',
    );
  const prefix = resolve(rest[0]!);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const keyFile = `${prefix}.key`;
  const pubFile = `${prefix}.pub`;
  createNew(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 0o600);
  try {
    createNew(pubFile, publicKey.export({ type: 'spki', format: 'pem' }).toString(), 0o644);
  } catch (e) {
    // No private key without its public half: the pair is made whole or not at all.
    unlinkSync(keyFile);
    throw e;
  }
  io.out(terminalLine(`private key -> ${show(keyFile)} (owner-only; keep it secret: it signs attestations)`));
  io.out(terminalLine(`public key  -> ${show(pubFile)} (publish it: verify --key checks attestations with it)`));
  io.out(`key id ${keyId(publicKey)}`);
  return EXIT.ok;
}
