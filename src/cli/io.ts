// Exit codes and output sinks shared by the commands (documented in README.md).
export const EXIT = { ok: 0, finding: 1, badInput: 2, internal: 3 } as const;

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * A reader that stops early (`--checks | head`) closes the pipe: from then on nothing more
 * is written there, and the command still ends normally (its exit code unchanged) instead
 * of crashing on EPIPE with a stack trace.
 */
function guard(stream: NodeJS.WriteStream): (line: string) => void {
  let closed = false;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') closed = true;
    else throw e;
  });
  return (line) => {
    if (!closed && !stream.destroyed) stream.write(`${line}\n`);
  };
}

let sinks: Io | undefined;

/** The process's own stdout and stderr, guarded once, before anything (Playwright's relayed output included) writes there. */
export function guardProcessStreams(): Io {
  return (sinks ??= { out: guard(process.stdout), err: guard(process.stderr) });
}

export const processIo: Io = {
  out: (line) => guardProcessStreams().out(line),
  err: (line) => guardProcessStreams().err(line),
};
