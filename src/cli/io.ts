// Exit codes and output sinks shared by the commands (documented in README.md).
export const EXIT = { ok: 0, finding: 1, badInput: 2, internal: 3 } as const;

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

export const processIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};
