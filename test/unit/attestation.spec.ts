// The signed attestation (src/results/attestation.ts) and what `verify` makes of it
// (src/results/verify.ts): a folder written with a key verifies with its public key; one
// byte flipped in any subject, in the envelope, or in a file given as the implementation
// fails with one line naming it; a folder forged with matching digests but without the key
// fails; keygen and bad keys are one-line usage errors.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ATTESTATION_FILE,
  buildStatement,
  envelopeLine,
  keyId,
  PREDICATE_TYPE,
  readAttestation,
} from '../../src/results/attestation.js';
import { stableJson, type ClaimResults } from '../../src/results/model.js';
import { verifyClaimFolder } from '../../src/results/verify.js';
import { JUNIT_FILE, REPORT_FILE, RESULTS_FILE, resultsDigest, writeClaimResults } from '../../src/results/write.js';
import { junitXml } from '../../src/results/junit.js';
import { claimPage } from '../../src/results/html/claim-page.js';
import { stdioClaimResults } from '../support/results-fixture.js';
import { HAVE_SPEC, NO_SPEC_REASON, ROOT, SPEC_DIR } from '../support/paths.js';
import { attestedRequirements } from '../../src/checks/requirement-texts.js';
import { loadClaim } from '../../src/claims/load.js';
import { implementationFiles } from '../../src/engine/implementation-files.js';
import { tempFolders } from '../support/temp.js';

const BIN = resolve(ROOT, 'bin', 'ahp-conformance.js');
const workspace = tempFolders('ahp-attestation-');
const pair = () => generateKeyPairSync('ed25519');

/** A claim folder written as a run writes it, signed with `key`, its implementation one file. */
function signedFolder(key = pair().privateKey): { dir: string; impl: string; results: ClaimResults } {
  const dir = workspace();
  const impl = join(dir, 'server.bin');
  writeFileSync(impl, 'the implementation under test\n');
  const base = stdioClaimResults();
  const results: ClaimResults = {
    ...base,
    claim: {
      ...base.claim,
      digest: resultsDigest('claim bytes'),
      implementationFiles: [
        { name: impl, kind: 'command', sha256: resultsDigest(readFileSync(impl)) },
        { name: 'fifo', kind: 'argument', notHashed: 'it is a named pipe (FIFO)' },
      ],
    },
  };
  writeClaimResults(join(dir, 'acme'), results, {}, undefined, {}, { key, requirements: [] });
  return { dir: join(dir, 'acme'), impl, results };
}

function flip(file: string, at = 10): void {
  const b = readFileSync(file);
  b[at] = b[at]! ^ 1;
  writeFileSync(file, b);
}

test('a signed folder verifies with its public key, and says which key signed and when', () => {
  const { privateKey, publicKey } = pair();
  const { dir, impl } = signedFolder(privateKey);
  const v = verifyClaimFolder(dir, { key: publicKey, implementation: impl });
  expect(v.problems).toEqual([]);
  expect(v.signature).toMatch(new RegExp(`^signed by key ${keyId(publicKey)} at \\d{4}-\\d\\d-\\d\\dT`));
  expect(v.implementationMatch).toBe(`implementation:${impl}`);
  // The report names the signing key and the bytes tested, for a reader to compare.
  const page = readFileSync(join(dir, REPORT_FILE), 'utf8');
  expect(page).toContain(`signed by key <code>${keyId(publicKey)}</code>`);
  expect(page).toContain(`<li><code>${impl}</code> <span class="muted">command · sha256 <code>`);
  const a = readAttestation(dir);
  if (a.kind !== 'ok') throw new Error(a.kind);
  expect(a.statement.predicateType).toBe(PREDICATE_TYPE);
  expect(a.statement.subject.map((s) => s.name)).toEqual([
    RESULTS_FILE,
    JUNIT_FILE,
    REPORT_FILE,
    'claim:claims/acme.yaml',
    `implementation:${impl}`,
  ]);
  // The file that could not be hashed is recorded with why, never as a subject.
  expect(a.statement.predicate.ahp.implementationFiles).toContainEqual({
    name: 'fifo',
    kind: 'argument',
    notHashed: 'it is a named pipe (FIFO)',
  });
  expect(a.statement.predicate.ahp.runner.packageSha256).toMatch(/^[0-9a-f]{64}$/);
});

for (const name of [RESULTS_FILE, JUNIT_FILE, REPORT_FILE, ATTESTATION_FILE])
  test(`one byte flipped in ${name} fails verify --key`, () => {
    const { privateKey, publicKey } = pair();
    const { dir } = signedFolder(privateKey);
    // Past the envelope's opening, so the line stays JSON and only its payload or signature changes.
    flip(join(dir, name), name === ATTESTATION_FILE ? 200 : 10);
    const v = verifyClaimFolder(dir, { key: publicKey });
    expect(v.problems.length).toBeGreaterThan(0);
    expect(v.problems.join('; ')).toMatch(
      new RegExp(name === ATTESTATION_FILE ? ATTESTATION_FILE : name.replace('.', '\\.')),
    );
  });

test('bytes other than those tested fail verify --implementation with one line', () => {
  const { dir, impl } = signedFolder();
  flip(impl, 3);
  const v = verifyClaimFolder(dir, { implementation: impl });
  expect(v.problems).toHaveLength(1);
  expect(v.problems[0]).toMatch(
    /server\.bin \(sha256 [0-9a-f]{64}\) is none of the files the run tested \(claim:claims\/acme\.yaml, implementation:/,
  );
});

test('a folder forged with matching digests verifies only as self-consistent: without the key, --key fails', () => {
  const { publicKey } = pair();
  const { dir, results } = signedFolder();
  // The forger edits the verdict and rewrites every view and a consistent statement, signed by a key of their own.
  const forged: ClaimResults = { ...results, verdict: 'conformant' };
  const json = stableJson(forged);
  const junit = junitXml(forged);
  const page = claimPage(forged, {}, resultsDigest(json));
  writeFileSync(join(dir, RESULTS_FILE), json);
  writeFileSync(join(dir, JUNIT_FILE), junit);
  writeFileSync(join(dir, REPORT_FILE), page);
  const statement = buildStatement({
    results: forged,
    views: { results: resultsDigest(json), junit: resultsDigest(junit), report: resultsDigest(page) },
    requirements: [],
    signedAt: new Date().toISOString(),
  });
  for (const key of [pair().privateKey, undefined]) {
    writeFileSync(join(dir, ATTESTATION_FILE), envelopeLine(statement, key));
    expect(verifyClaimFolder(dir).problems, 'self-consistent').toEqual([]);
    const v = verifyClaimFolder(dir, { key: publicKey });
    expect(v.problems).toHaveLength(1);
    expect(v.problems[0]).toMatch(key ? /no signature verifies with key [0-9a-f]{64} \(it names key / : /is unsigned/);
  }
});

test('a folder without an attestation fails verify --key; without --key it verifies as before', () => {
  const dir = workspace();
  writeClaimResults(join(dir, 'acme'), stdioClaimResults());
  expect(verifyClaimFolder(join(dir, 'acme')).problems).toEqual([]);
  expect(verifyClaimFolder(join(dir, 'acme'), { key: pair().publicKey }).problems).toEqual([
    `no ${ATTESTATION_FILE}: nothing signed this folder`,
  ]);
});

test('a later write without an attestation removes the earlier one, so no stale signature stays beside new results', () => {
  const { dir } = signedFolder();
  writeClaimResults(dir, stdioClaimResults());
  expect(() => statSync(join(dir, ATTESTATION_FILE))).toThrow();
});

const cli = (cwd: string, args: string[]) => {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

test('keygen writes an owner-only key and its public half, never over a file; bad keys are one-line errors', () => {
  const dir = workspace();
  const made = cli(dir, ['keygen', 'vendor']);
  expect(made.code, made.err).toBe(0);
  expect(made.out).toMatch(/^key id [0-9a-f]{64}$/m);
  expect(statSync(join(dir, 'vendor.key')).mode & 0o777).toBe(0o600);
  const again = cli(dir, ['keygen', 'vendor']);
  expect(again.code).toBe(2);
  expect(again.err.trim().split('\n')).toHaveLength(1);
  expect(again.err).toMatch(/vendor\.key exists; not overwritten/);
  writeFileSync(join(dir, 'not-a-key'), 'hello\n');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
  writeFileSync(join(dir, 'rsa.pub'), rsa.publicKey.export({ type: 'spki', format: 'pem' }));
  const { dir: folder } = signedFolder();
  for (const [args, says] of [
    [['verify', folder, '--key', 'not-a-key'], /--key not-a-key: not a PEM public key/],
    [['verify', folder, '--key', 'rsa.pub'], /--key rsa\.pub: its key type is rsa; an ed25519 key verifies/],
    [['verify', folder, '--key', 'missing.pub'], /--key missing\.pub: no such file/],
    [['verify', folder, '--key', 'vendor.key'], /--key vendor\.key: a private key; give the public key/],
    [['run', 'claim.yaml', '--sign-key', 'vendor.pub'], /--sign-key vendor\.pub: not a PEM private key/],
    [['validate', 'x.json', '--sign-key', 'vendor.key'], /--sign-key: only `run` and `merge` take this/],
    [['run', 'claim.yaml', '--key', 'vendor.pub'], /--key: only `verify` takes this/],
    [['verify', folder, '--implementation', 'missing.bin'], /--implementation missing\.bin: no such file/],
    [['verify', folder, '--implementation', '.'], /--implementation \.: it is a folder; not read/],
  ] as const) {
    const r = cli(dir, [...args]);
    expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(2);
    expect(r.err.trim().split('\n'), args.join(' ')).toHaveLength(1);
    expect(r.err, args.join(' ')).toMatch(says);
  }
  const ok = cli(dir, ['verify', folder, '--key', 'vendor.pub']);
  expect(ok.code).toBe(1);
  expect(ok.out).toMatch(/NOT VERIFIED: .*no signature verifies with key/);
});

test('the implementation files: the command as found on PATH, arguments naming regular files, the claim artifacts', () => {
  const dir = workspace();
  writeFileSync(join(dir, 'server.js'), '// the server\n');
  writeFileSync(join(dir, 'acme.whl'), 'wheel bytes');
  spawnSync('mkfifo', [join(dir, 'fifo')]);
  const claim = (artifacts: string) =>
    writeFileSync(
      join(dir, 'claim.yaml'),
      `implementation: { name: acme, version: 1.0.0 }\nrole: backend\ntransports: [stdio]\nprofiles: [tool-interception]\n${artifacts}` +
        `backend:\n  stdio: { command: node, args: [server.js, --port, "8080", missing.js, fifo, /dev/null, .] }\n`,
    );
  claim('artifacts: [acme.whl]\n');
  const loaded = loadClaim(join(dir, 'claim.yaml'));
  if (loaded.kind !== 'ok') throw new Error(JSON.stringify(loaded));
  const files = implementationFiles(loaded.claim);
  const sha = (f: string) => resultsDigest(readFileSync(join(dir, f)));
  expect(files).toEqual([
    { name: expect.stringMatching(/\/node$/), kind: 'command', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    { name: 'server.js', kind: 'argument', sha256: sha('server.js') },
    { name: 'acme.whl', kind: 'artifact', sha256: sha('acme.whl') },
  ]);
  for (const [artifacts, says] of [
    ['artifacts: [gone.whl]\n', /artifacts\[0\]: gone\.whl: no such file \(resolved to /],
    ['artifacts: [.]\n', /artifacts\[0\]: \. is not a regular file/],
    ['artifacts: [fifo]\n', /artifacts\[0\]: fifo is not a regular file/],
  ] as const) {
    claim(artifacts);
    const r = loadClaim(join(dir, 'claim.yaml'));
    expect(r.kind).toBe('error');
    expect(r.kind === 'error' && r.messages.join('\n')).toMatch(says);
  }
});

test.describe('verify --snapshot', () => {
  test.skip(!HAVE_SPEC, NO_SPEC_REASON);

  /** A copy of the snapshot's requirement catalogue, `edit` applied to its requirements. */
  function snapshotCopy(edit: (rs: { id: string; text: string }[]) => void): string {
    const dir = workspace();
    mkdirSync(join(dir, 'spec', 'draft'), { recursive: true });
    const doc = JSON.parse(readFileSync(join(SPEC_DIR, 'spec', 'draft', 'requirements.json'), 'utf8')) as {
      requirements: { id: string; text: string }[];
    };
    edit(doc.requirements);
    writeFileSync(join(dir, 'spec', 'draft', 'requirements.json'), JSON.stringify(doc, null, 2));
    return dir;
  }

  test('a requirement whose text was edited is reported stale, exactly that one; an unchanged copy is fresh', () => {
    const { privateKey, publicKey } = pair();
    const dir = workspace();
    const requirements = attestedRequirements('draft@2b5da580', ['base.jsonrpc-utf8', 'base.protocol-version']);
    writeClaimResults(join(dir, 'acme'), stdioClaimResults(), {}, undefined, {}, { key: privateKey, requirements });
    writeFileSync(join(dir, 'acme.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
    const same = cli(dir, ['verify', 'acme', '--key', 'acme.pub', '--snapshot', snapshotCopy(() => {})]);
    expect(same.code, same.out + same.err).toBe(0);
    expect(same.out).toMatch(/: \d+ unchanged, 0 changed, 0 removed, \d+ new: fresh/);
    const edited = snapshotCopy((rs) => {
      const r = rs.find((x) => x.id === 'AHP-RPC-001')!;
      r.text = `${r.text} Edited upstream.`;
    });
    const stale = cli(dir, ['verify', 'acme', '--key', 'acme.pub', '--snapshot', edited]);
    expect(stale.code, stale.out + stale.err).toBe(1);
    expect(stale.out).toMatch(/^acme: verified but STALE: /m);
    const changed = stale.out.split('\n').filter((l) => / changed: /.test(l));
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatch(
      /^ {2}AHP-RPC-001: changed: .*the certificate is stale for it \(judged by base\.jsonrpc-utf8/,
    );
    expect(stale.out).toMatch(/: \d+ unchanged, 1 changed, 0 removed, \d+ new: STALE for 1 requirement it relied on/);
    // A folder that is not a snapshot is bad input, in one line.
    const bad = cli(dir, ['verify', 'acme', '--snapshot', dir]);
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
  });
});

test('an attestation that is a symbolic link (to a private file) is refused unread, in one line, exit 2', () => {
  const { dir } = signedFolder();
  const secret = join(workspace(), 'secret');
  writeFileSync(secret, 'not for the verifier');
  rmSync(join(dir, ATTESTATION_FILE));
  symlinkSync(secret, join(dir, ATTESTATION_FILE));
  const r = cli(dir, ['verify', '.']);
  expect(r.code).toBe(2);
  expect(r.err.trim().split('\n')).toHaveLength(1);
  expect(r.err).toMatch(/attestation\.intoto\.jsonl: it is a symbolic link; not read/);
  expect(r.out + r.err).not.toContain('not for the verifier');
});
