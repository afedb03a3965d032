// The upload scenario of the harness role (issue 15 B; adapter contract 2, "Upload steps"):
// one user.message.inbound step whose message holds a text part and three attachments
// given as files: image/png bytes (the one to upload), an application/json file and a
// text/plain file (carried inline as text, never uploaded). One fail-closed interceptor `u`
// on the HTTP target, authenticated with the session's bearer token, whose subscription
// uploads to the runner's receiver (drivers/upload-receiver.ts) answering by `answer`.
// Every file is random per run, so a body is recognised by its hash and nothing else.
import { Folder } from '../../src/safe-fs.js';
import { randomBytes } from 'node:crypto';
import { sha256Hex, UploadReceiver, type UploadAnswer, type UploadRecord } from '../../drivers/upload-receiver.js';
import { intercept, type HarnessRun, type HarnessSession } from './harness-session.js';
import { frames, INTERCEPT } from './harness-observations.js';
import { isObject } from '../../src/protocol/json.js';

type Obj = Record<string, unknown>;

export const UPLOAD_HOOK = 'u';
export const UPLOAD_STEP = 'up1';
export const PNG_PART = `${UPLOAD_STEP}.png`;
/** The transfer limit written into the binding: far above the files, so it never decides. */
const MAX_BYTES = 64 * 1024;

export interface UploadFile {
  path: string;
  mediaType: string;
  size: number;
  sha256: string;
}

export interface UploadRun {
  run: HarnessRun;
  answer: UploadAnswer;
  /** The receiver's records: uploads, and anything that reached the redirect target. */
  records: UploadRecord[];
  endpointPath: string;
  files: { png: UploadFile; json: UploadFile; text: UploadFile };
}

let serial = 0;

/** PNG signature, then bytes that are no UTF-8 and a CR LF: any text conversion changes the hash. */
function pngBytes(): Buffer {
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    Buffer.from([0x00, 0xff, 0xfe, 0x0d, 0x0a]),
    randomBytes(512),
  ]);
}

function write(dir: Folder, name: string, mediaType: string, bytes: Buffer): UploadFile {
  dir.write(name, bytes);
  return { path: dir.show(name), mediaType, size: bytes.length, sha256: sha256Hex(bytes) };
}

/** One run of the upload scenario with the receiver answering every upload with `answer`. */
export async function uploadRun(harness: HarnessSession, answer: UploadAnswer): Promise<UploadRun> {
  // A fresh folder in the check's folder, written through its descriptor: an adapter of an
  // earlier run may have planted a link at its name (src/safe-fs.ts).
  const top = Folder.open(harness.folder);
  const dir = top.folder(`upload-files-${++serial}`, { fresh: true });
  top.close();
  const nonce = randomBytes(8).toString('hex');
  let files: Record<'png' | 'json' | 'text', UploadFile>;
  try {
    files = {
      png: write(dir, 'image.png', 'image/png', pngBytes()),
      json: write(dir, 'data.json', 'application/json', Buffer.from(JSON.stringify({ nonce, items: [1, 2, 3] }))),
      text: write(dir, 'note.txt', 'text/plain', Buffer.from(`A note that stays inline: ${nonce}\n`)),
    };
  } finally {
    dir.close();
  }
  const receiver = await UploadReceiver.start({ answers: [answer], secrets: [harness.token] });
  try {
    const attachment = (id: string, f: UploadFile): Obj => ({
      id,
      kind: 'attachment',
      mediaType: f.mediaType,
      selection: 'body',
      file: f.path,
    });
    const run = await harness.run({
      label: `upload step, the receiver answers ${answer}; interceptor u fail-closed with bearer authentication`,
      hooks: [
        {
          name: UPLOAD_HOOK,
          bearer: true,
          subscriptions: [
            intercept(['user.message.inbound'], {
              failurePolicy: 'fail-closed',
              upload: { endpoint: receiver.endpoint(UPLOAD_HOOK), timeoutMs: harness.timeoutMs, maxBytes: MAX_BYTES },
            }),
          ],
        },
      ],
      steps: [
        {
          kind: 'user.message.inbound',
          id: UPLOAD_STEP,
          content: {
            message: {
              channel: 'ahp-sentinel',
              sender: 'ahp-user',
              messages: [
                {
                  id: `${UPLOAD_STEP}.m1`,
                  role: 'user',
                  parts: [
                    {
                      id: `${UPLOAD_STEP}.p1`,
                      kind: 'text',
                      mediaType: 'text/plain',
                      selection: 'body',
                      text: 'See the picture.',
                    },
                    attachment(PNG_PART, files.png),
                    attachment(`${UPLOAD_STEP}.json`, files.json),
                    attachment(`${UPLOAD_STEP}.text`, files.text),
                  ],
                },
              ],
            },
          },
        },
      ],
    });
    await receiver.close();
    // Uploads proper, as uploadsOf counts them: what harness.uploads is held against.
    harness.observed.add({ uploads: receiver.records.filter((r) => !r.redirected && r.method === 'POST').length });
    for (const r of receiver.records)
      harness.transcript.record({
        dir: 'recv',
        channel: 'http',
        http: { method: r.method, url: r.url, status: r.status, headers: r.headers },
        text: '',
        note: `upload receiver: ${r.size} body bytes, sha256 ${r.sha256}${r.transferEncoding ? `, transfer-encoding ${r.transferEncoding}` : ''}; answered ${r.status}${r.receipt ? ` ${JSON.stringify(r.receipt)}` : ''}`,
      });
    return { run, answer, records: [...receiver.records], endpointPath: receiver.endpointPath(UPLOAD_HOOK), files };
  } finally {
    await receiver.close().catch(() => undefined);
  }
}

/** The hooks/intercept frames of the upload hook. */
export const uploadIntercepts = (u: UploadRun) => frames(u.run, { hook: UPLOAD_HOOK, method: INTERCEPT });

/** The image part as an intercept frame carries it (undefined: the frame has no such part). */
export function pngPartOf(frame: { message?: unknown }): Obj | undefined {
  const params = isObject(frame.message) ? frame.message.params : undefined;
  const event = isObject(params) ? params.event : undefined;
  const message = isObject(event) ? event.message : undefined;
  const list = isObject(message) && Array.isArray(message.messages) ? message.messages : [];
  for (const m of list)
    if (isObject(m) && Array.isArray(m.parts)) for (const p of m.parts) if (isObject(p) && p.id === PNG_PART) return p;
  return undefined;
}

/** Uploads proper: POSTs that did not reach the redirect target. */
export const uploadsOf = (u: UploadRun): UploadRecord[] =>
  u.records.filter((r) => !r.redirected && r.method === 'POST');
