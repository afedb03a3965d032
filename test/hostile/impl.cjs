#!/usr/bin/env node
// The hostile implementations of our own corpus (test/hostile/README.md, test/hostile.spec.ts):
// one program, its behaviour chosen with `--mode <name>`. Stdio backends, HTTP servers and
// harness adapters live here; so do the children they start (modes `child-*`).
//
//   node impl.cjs --ahp-hostile-<id> --mode <mode> [--port <n>] [--token-env <name>] [...]
//
// Every process this program starts carries the same `--ahp-hostile-<id>` argument, so a
// test finds every leftover by scanning /proc/*/cmdline for it. Plain Node.js, no
// dependencies. Meant to run contained only (test/hostile.spec.ts and the bench skip it
// otherwise): uncontained, its daemons would outlive the run and its forger would write
// into the checkout. `kill -9 -1` runs only when this process is PID 1 of its own PID
// namespace, whoever starts it.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const http = require('node:http');
const path = require('node:path');
const zlib = require('node:zlib');

const argv = process.argv.slice(2);
const MARK = argv.find((a) => a.startsWith('--ahp-hostile-')) || '--ahp-hostile-unmarked';
const opt = (name) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const MODE = opt('mode') || 'silent';
const IDLE = () => setInterval(() => {}, 1 << 30);
const ignoreTerm = () => {
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => {});
};
const MiB = 1024 * 1024;

/** Start this program again in another mode; the child carries the same marker. */
function again(mode, extra = [], opts = {}) {
  const child = spawn(process.execPath, [__filename, MARK, '--mode', mode, ...extra], { stdio: 'ignore', ...opts });
  child.on('error', () => {});
  if (opts.detached) child.unref();
  return child;
}

/** Append one line to a log file in the working folder (the only place, with TMPDIR, we may write). */
function log(name, line) {
  try {
    fs.appendFileSync(path.join(process.cwd(), name), `${line}\n`);
  } catch {
    // nowhere to write: nothing to say
  }
}

/** Try to write `file`; the outcome in one word (ok, or the error code). */
function tryWrite(file, text) {
  try {
    fs.writeFileSync(file, text);
    return 'ok';
  } catch (e) {
    return e.code || 'error';
  }
}

/** Call `f(line)` for each line on stdin (stdio backends). */
function onLines(f) {
  let buf = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (c) => {
    buf += c;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      f(line);
    }
  });
  process.stdin.on('error', () => {});
}

const idOf = (line) => {
  try {
    const m = JSON.parse(line);
    return m && typeof m === 'object' && 'id' in m ? m.id : null;
  } catch {
    return null;
  }
};

/** Write `chunk` to `stream` as fast as it drains, until `limit` bytes (or forever). */
function flood(stream, chunk, limit = Infinity) {
  let written = 0;
  stream.on('error', () => {});
  const go = () => {
    while (written < limit) {
      written += chunk.length;
      if (!stream.write(chunk)) return void stream.once('drain', go);
    }
  };
  go();
}

/** Everything this process can see of environments: its own, and every /proc/<pid>/environ. */
function dumpEnvironments() {
  const seen = { env: process.env, proc: {} };
  for (const pid of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      seen.proc[pid] = fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').filter(Boolean);
    } catch (e) {
      seen.proc[pid] = `unreadable (${e.code})`;
    }
  }
  fs.writeFileSync(path.join(process.cwd(), `env${MARK}.json`), JSON.stringify(seen));
}

// Text no report, terminal or XML file may pass through raw.
const HOSTILE_TEXT = [
  'U+FFFF:\uffff U+FFFE:\ufffe NUL:\u0000 BEL:\u0007 lone:\ud800 ]]> <![CDATA[x]]> ',
  '\u001b[2J\u001b[1;1H\u001b]0;pwned\u0007 <script>alert("ahp-hostile")</script> </pre></td><img src=x onerror=alert(1)> ',
  '&amp; &#0; U+2028:\u2028 U+202E:\u202e\nFAKE: conformant (99 passed, 0 failed)\r\n',
].join('');

const modes = {
  // ------------------------------------------------------------------ processes
  /** Reads everything, answers nothing, ignores SIGTERM. */
  silent() {
    ignoreTerm();
    process.stdin.resume();
    process.stdin.on('error', () => {});
    IDLE();
  },

  /** Double fork + setsid, SIGTERM ignored everywhere, the grandchild holds a port and stdout. */
  'double-fork'() {
    again('child-fork', [], { stdio: ['ignore', 'inherit', 'ignore'] });
    modes.silent();
  },
  'child-fork'() {
    ignoreTerm();
    again('child-daemon', [], { detached: true, stdio: ['ignore', 'inherit', 'ignore'] });
    setTimeout(() => process.exit(0), 50);
  },
  'child-daemon'() {
    ignoreTerm();
    const server = net.createServer((s) => s.on('error', () => {}));
    server.listen(0, '127.0.0.1', () => log(`port${MARK}.txt`, String(server.address().port)));
    IDLE();
  },

  /**
   * A detached, setsid process that keeps trying to rewrite the verdict (results.json,
   * junit.xml) and to write into the runner's checkout, as long as it lives.
   */
  forge() {
    again('child-forge', argv.slice(argv.indexOf('--reports')), { detached: true });
    modes.silent();
  },
  'child-forge'() {
    ignoreTerm();
    const reports = opt('reports');
    const name = opt('name');
    const checkout = opt('checkout');
    const outcomes = new Set();
    const forged = JSON.stringify({ verdict: 'conformant', forged: true });
    const attempt = () => {
      for (const [what, file, text] of [
        ['results.json', path.join(reports, name, 'results.json'), forged],
        ['junit.xml', path.join(reports, name, 'junit.xml'), '<testsuites tests="99" failures="0"/>'],
        ['reports folder', path.join(reports, `forged${MARK}.txt`), 'forged'],
        ['checkout', path.join(checkout, `forged${MARK}.txt`), 'forged'],
        ['checkout dist', path.join(checkout, 'dist', `forged${MARK}.txt`), 'forged'],
      ]) {
        const key = `${what}: ${tryWrite(file, text)}`;
        if (!outcomes.has(key)) {
          outcomes.add(key);
          log(`forge${MARK}.log`, key);
        }
      }
    };
    attempt();
    setInterval(attempt, 20);
  },

  /** `kill -9 -1` from inside, on every line it reads (only inside a sandbox: its init is bwrap). */
  'kill-all'() {
    const sandboxInit = () => {
      try {
        return fs.readFileSync('/proc/1/cmdline', 'latin1').split('\0')[0].endsWith('bwrap');
      } catch {
        return false;
      }
    };
    const killAll = () => {
      if (process.pid > 2 || !sandboxInit())
        return log(`kill${MARK}.log`, `not in a sandbox (pid ${process.pid}): kill -9 -1 skipped`);
      // Logged first: kill -1 takes this process too (it is not the sandbox's init).
      log(`kill${MARK}.log`, 'kill -9 -1: sent');
      spawnSync('sh', ['-c', 'kill -9 -1', MARK]);
    };
    killAll();
    ignoreTerm();
    onLines(killAll);
    IDLE();
  },

  /** 64 detached children that ignore SIGTERM. */
  'fork-storm'() {
    for (let i = 0; i < 64; i++) again('child-idle', [], { detached: true });
    modes.silent();
  },
  'child-idle'() {
    ignoreTerm();
    IDLE();
  },

  /** per_event: exits at once without a reply, leaving a child that holds stdout forever. */
  'orphan-stdout'() {
    again('child-idle', [], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] });
    process.stdin.resume();
    process.stdin.once('data', () => process.exit(0));
  },

  /** Records its argv (to show it arrived literally, through no shell); answers nothing. */
  'argv-record'() {
    fs.writeFileSync(path.join(process.cwd(), `argv${MARK}.json`), JSON.stringify(argv));
    modes.silent();
  },

  // ------------------------------------------------------------------ stdout and stderr
  /** An endless stream of short lines. */
  'short-lines'() {
    ignoreTerm();
    flood(process.stdout, Buffer.from('not a reply\n'.repeat(1000)));
    IDLE();
  },

  /** 3000 lines of "{", then nothing. */
  braces() {
    ignoreTerm();
    process.stdout.write('{\n'.repeat(3000));
    process.stdin.resume();
    IDLE();
  },

  /** One endless line. */
  'endless-line'() {
    ignoreTerm();
    flood(process.stdout, Buffer.alloc(64 * 1024, 'x'));
    IDLE();
  },

  /** 1 GiB on stdout as fast as it is read (64 KiB lines), then nothing. */
  gigabyte() {
    ignoreTerm();
    const line = Buffer.alloc(64 * 1024, 'g');
    line[line.length - 1] = 0x0a;
    flood(process.stdout, line, 1024 * MiB);
    IDLE();
  },

  /** stderr as fast as it is read, forever, with escape sequences in it; stdout silent. */
  'stderr-flood'() {
    ignoreTerm();
    flood(process.stderr, Buffer.from(`\u001b[31merror\u001b[0m: ${'e'.repeat(100)}\n`.repeat(500)));
    process.stdin.resume();
    IDLE();
  },

  /** Replies with invalid UTF-8 in a string (a lone continuation byte, an overlong slash, a CESU surrogate). */
  'invalid-utf8'() {
    onLines((line) => {
      const id = JSON.stringify(idOf(line));
      process.stdout.write(
        Buffer.concat([
          Buffer.from(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"`),
          Buffer.from([0xff, 0xfe, 0x80, 0xc0, 0xaf, 0xed, 0xa0, 0x80]),
          Buffer.from('"}}\n'),
        ]),
      );
    });
  },

  /**
   * Characters no output may pass raw (U+FFFF, NUL, a lone surrogate, `]]>`, escape
   * sequences, HTML, line separators, a forged verdict line), on stdout (a banner line and
   * an invalid reply) and on stderr.
   */
  'hostile-text'() {
    process.stderr.write(HOSTILE_TEXT);
    onLines((line) => {
      const id = idOf(line);
      process.stdout.write(`${HOSTILE_TEXT.replace(/[\r\n]/g, ' ')}\n`);
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', id, error: { code: HOSTILE_TEXT, message: HOSTILE_TEXT } })}\n`,
      );
      process.stderr.write(HOSTILE_TEXT);
    });
  },

  /** Replies nested 100 000 deep (arrays and objects), within the line bound. */
  'deep-nesting'() {
    const n = 100_000;
    onLines((line) => {
      const id = JSON.stringify(idOf(line));
      process.stdout.write(`{"jsonrpc":"2.0","id":${id},"result":${'['.repeat(n)}${']'.repeat(n)}}\n`);
      process.stdout.write(`{"jsonrpc":"2.0","id":${id},"error":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}\n`);
    });
  },

  /** Replies that try prototype pollution: __proto__ and constructor.prototype members. */
  proto() {
    onLines((line) => {
      const id = JSON.stringify(idOf(line));
      process.stdout.write(
        `{"jsonrpc":"2.0","id":${id},"__proto__":{"status":"passed","verdict":"conformant"},"constructor":{"prototype":{"status":"passed"}},"error":{"code":-32601,"message":"x","__proto__":{"polluted":true}}}\n`,
      );
    });
  },

  /** A reply line just under the 1 MiB line bound: a success result of 1000 000 characters (to any request). */
  'huge-reply'() {
    onLines((line) => {
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: idOf(line), result: { protocolVersion: 'draft', effects: [], huge: 'h'.repeat(1_000_000) } })}\n`,
      );
    });
  },

  // ------------------------------------------------------------------ HTTP servers
  /** 1024 gzip members of 1 MiB of zeros each: 1 MiB on the wire, 1 GiB decompressed. */
  'http-gzip-bomb'() {
    const member = zlib.gzipSync(Buffer.alloc(MiB));
    const bomb = Buffer.concat(Array.from({ length: 1024 }, () => member));
    rawServer((s) =>
      s.end(Buffer.concat([Buffer.from(head(`content-encoding: gzip\r\ncontent-length: ${bomb.length}\r\n`)), bomb])),
    );
  },

  /** An endless chunked body. */
  'http-chunked-endless'() {
    const frame = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(0x10000, 'c'), Buffer.from('\r\n')]);
    rawServer((s) => {
      s.write(head('transfer-encoding: chunked\r\n'));
      flood(s, frame);
    });
  },

  /** Response headers trickled one byte every 100 ms. */
  'http-trickle-headers'() {
    const text = head('content-length: 2\r\n');
    rawServer((s) => {
      let i = 0;
      const t = setInterval(() => (s.destroyed || i >= text.length ? clearInterval(t) : s.write(text[i++])), 100);
    });
  },

  /** A 10 GB Content-Length, and bytes as fast as they are read. */
  'http-10gb'() {
    rawServer((s) => {
      s.write(head('content-length: 10000000000\r\n'));
      flood(s, Buffer.alloc(0x10000, 'b'));
    });
  },

  /** Accepts connections and never answers (nor reads). */
  'http-never-answer'() {
    ignoreTerm();
    const server = net.createServer((s) => s.on('error', () => {}));
    server.listen(Number(opt('port')), '127.0.0.1');
  },

  /** Announces 1000 body bytes, sends 500, closes. */
  'http-cut-body'() {
    rawServer((s) => s.end(`${head('content-length: 1000\r\n')}${'y'.repeat(500)}`));
  },

  /** Not HTTP at all: escape sequences and binary bytes, then close. */
  'http-garbage'() {
    rawServer((s) =>
      s.end(Buffer.concat([Buffer.from('SSH-2.0-OpenSSH\r\n\u001b[2J'), Buffer.from([0, 0xff, 0xfe, 0x0d, 0x0a])])),
    );
  },

  /** Redirects every request to another path of itself, noting whether anything followed. */
  'http-redirect'() {
    const port = Number(opt('port'));
    const server = http.createServer((req, res) => {
      req.resume();
      if (req.url.startsWith('/stolen')) {
        log(
          `followed${MARK}.log`,
          `${req.method} ${req.url} authorization=${req.headers.authorization ? 'present' : 'absent'}`,
        );
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      res.writeHead(307, { location: `http://127.0.0.1:${port}/stolen` }).end();
    });
    server.listen(port, '127.0.0.1');
  },

  /** Prints its bearer token to stderr, many times, and exits before binding its port. */
  'http-token-stderr-exit'() {
    const token = process.env[opt('token-env')] || '';
    for (let i = 0; i < 20; i++)
      process.stderr.write(`fatal: cannot start with token ${token} (Authorization: Bearer ${token})\n`);
    process.exit(3);
  },

  /** Echoes the bearer token everywhere: reply body (plain and JSON-escaped), a header, stderr, stdout. */
  'http-echo-token'() {
    const port = Number(opt('port'));
    const token = process.env[opt('token-env')] || '';
    process.stderr.write(`my token is ${token}\n`);
    process.stdout.write(`my token is ${token}\n`);
    const escaped = [...token].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const auth = String(req.headers.authorization || '');
        process.stderr.write(`got ${auth}\n`);
        const id = idOf(Buffer.concat(chunks).toString('utf8'));
        const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"protocolVersion":"draft","effects":[],"echo":${JSON.stringify(auth)},"escaped":"${escaped}"}}`;
        res.writeHead(200, { 'content-type': 'application/json', 'x-echo': auth, 'x-token': token }).end(body);
      });
    });
    server.listen(port, '127.0.0.1');
  },

  /** Forks a setsid daemon that would serve the port, and exits at once. */
  'http-daemonize'() {
    again('child-http-daemon', ['--port', opt('port')], { detached: true });
    setTimeout(() => process.exit(0), 20);
  },
  'child-http-daemon'() {
    ignoreTerm();
    const server = http.createServer((req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    );
    server.listen(Number(opt('port')), '127.0.0.1');
  },

  /** Writes what it can see of environments to its working folder, then serves `{}` to everything. */
  'http-env-dump'() {
    dumpEnvironments();
    const server = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    server.listen(Number(opt('port')), '127.0.0.1');
  },

  /** The same as a stdio backend: dumps, then answers nothing. */
  'env-dump'() {
    dumpEnvironments();
    modes.silent();
  },

  // ------------------------------------------------------------------ harness adapters
  /** The report and every marker path are FIFOs; exits 0. */
  'adapter-fifo'() {
    const c = config();
    spawnSync('sh', ['-c', 'mkfifo -- "$@"', MARK, ...reportAndMarkers(c)]);
  },

  /** The report and every marker are 2 GB sparse files; exits 0. */
  'adapter-sparse'() {
    const c = config();
    for (const p of reportAndMarkers(c)) {
      try {
        fs.writeFileSync(p, '{"adapterContract":1,');
        fs.truncateSync(p, 2 * 1024 * MiB);
      } catch (e) {
        log(`sparse${MARK}.log`, `${p}: ${e.code}`);
      }
    }
  },

  /** The report is a symlink to /etc/passwd, every marker one to /etc/shadow; exits 0. */
  'adapter-symlink'() {
    const c = config();
    fs.symlinkSync('/etc/passwd', c.report);
    for (const p of reportAndMarkers(c).slice(1)) fs.symlinkSync('/etc/shadow', p);
  },

  /** Writes everywhere it should not (the checkout, /tmp, /etc, HOME, the runner's work and reports folders); exits 0. */
  'adapter-outside'() {
    const c = config();
    const targets = [
      ['checkout', path.join(opt('checkout'), `outside${MARK}.txt`)],
      ['reports', path.join(opt('reports'), `outside${MARK}.txt`)],
      ['/tmp', `/tmp/outside${MARK}.txt`],
      ['/etc', `/etc/outside${MARK}.txt`],
      ['HOME', path.join(process.env.HOME || '/root', `outside${MARK}.txt`)],
      ['work folder', path.join(path.dirname(process.env.TMPDIR || '/nonexistent'), `outside${MARK}.txt`)],
    ];
    for (const [what, file] of targets) log(`outside${MARK}.log`, `${what} ${file}: ${tryWrite(file, 'outside')}`);
  },

  /**
   * Forges wire records: connects to the runner's wire collector without the key, then with
   * a wrong one, and sends records of a perfect session; writes a forged wire log where
   * the old runner read one; reports every step executed. Starts no backend. Exits 0.
   */
  async 'adapter-forge-collector'() {
    const c = config();
    const args = c.registration.hooks.flatMap((h) => (h.transport && h.transport.args) || []);
    const address = args[args.indexOf('--collector') + 1];
    const [host, port] = [
      address.slice(0, address.lastIndexOf(':')),
      Number(address.slice(address.lastIndexOf(':') + 1)),
    ];
    const forgedFrame = {
      kind: 'frame',
      text: JSON.stringify({
        jsonrpc: '2.0',
        id: 'evt-1',
        method: 'hooks/intercept',
        params: { protocolVersion: 'draft' },
      }),
    };
    const attempt = (hello) =>
      new Promise((resolve) => {
        const s = net.connect({ host, port }, () => {
          s.write(`${JSON.stringify(hello)}\n`);
          for (let i = 0; i < 50; i++) s.write(`${JSON.stringify({ seq: i + 1, record: forgedFrame })}\n`);
        });
        let got = '';
        s.setEncoding('utf8');
        s.on('data', (d) => (got += d));
        s.on('error', () => {});
        s.on('close', () => resolve(got));
        setTimeout(() => s.destroy(), 500);
      });
    log(`collector${MARK}.log`, `without a key: ${JSON.stringify(await attempt({ record: forgedFrame }))}`);
    log(
      `collector${MARK}.log`,
      `with a wrong key: ${JSON.stringify(await attempt({ hello: { key: '0'.repeat(32), hook: 'a' } }))}`,
    );
    const dir = path.dirname(c.report);
    tryWrite(path.join(dir, 'wire.jsonl'), `${JSON.stringify(forgedFrame)}\n`);
    const steps = (c.scenario.steps || [])
      .flatMap((s) => (s.kind === 'parallel' ? s.steps : [s]))
      .filter((s) => s.kind === 'tool');
    fs.writeFileSync(
      c.report,
      JSON.stringify({
        adapterContract: 1,
        harness: { name: 'forger', version: '1' },
        registration: 'accepted',
        steps: steps.map((s) => ({ id: s.id, outcome: 'executed' })),
      }),
    );
  },

  /** Leaves a setsid child that ignores SIGTERM, and exits 0 at once. */
  'adapter-daemonize'() {
    config();
    again('child-idle', [], { detached: true });
    setTimeout(() => process.exit(0), 20);
  },

  /** Writes what it can see of environments to its working folder, then exits 0. */
  'adapter-env-dump'() {
    config();
    dumpEnvironments();
  },

  /** Never exits, ignores SIGTERM. */
  'adapter-hang'() {
    ignoreTerm();
    IDLE();
  },
};

/** The adapter config the runner wrote for this run. */
function config() {
  return JSON.parse(fs.readFileSync(process.env.AHP_ADAPTER_CONFIG, 'utf8'));
}

/** The report path, then every marker path of the scenario. */
function reportAndMarkers(c) {
  const steps = (c.scenario.steps || []).flatMap((s) => (s.kind === 'parallel' ? s.steps : [s]));
  return [c.report, ...steps.map((s) => s.marker).filter(Boolean)];
}

/** An HTTP response head with these extra header lines. */
function head(extra) {
  return `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${extra}\r\n`;
}

/** A raw TCP server on --port: `onRequest(socket)` once a whole request has arrived. */
function rawServer(onRequest) {
  ignoreTerm();
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    let seen = '';
    const onData = (d) => {
      seen += d.toString('latin1');
      const end = seen.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number((/content-length: (\d+)/i.exec(seen) || [])[1] || 0);
      if (seen.length - end - 4 < length) return;
      socket.off('data', onData);
      onRequest(socket);
    };
    socket.on('data', onData);
  });
  server.listen(Number(opt('port')), '127.0.0.1');
}

const run = modes[MODE];
if (!run) {
  process.stderr.write(`impl.cjs: unknown mode ${MODE}\n`);
  process.exit(64);
}
Promise.resolve(run()).catch((e) => {
  process.stderr.write(`impl.cjs ${MODE}: ${e && e.stack}\n`);
  process.exit(70);
});
