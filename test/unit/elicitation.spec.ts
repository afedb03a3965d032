// Inline MCP elicitation: the serialized MCP payload inside a selected text part,
// the pinned MCP contract, and the event boundary around it (checker 4.1b, 4.2).
import { test, expect } from '@playwright/test';
import { elicitationFindings, isWireValid, validate } from '../../src/protocol/validator.js';
import {
  copy,
  expectWireInvalidAt,
  expectWireValid,
  makeEvent,
  observeOf,
  textBody,
  without,
  type Obj,
} from '../support/wire.js';

type Which = 'request' | 'result';

/** `user.elicitation.<which>` event whose part holds `payload` (serialized unless it is already a string). */
function elicitationEvent(which: Which, payload: unknown, opts: { mode?: string; action?: string } = {}): Obj {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const envelope: Obj = { server: 'mcp-server', mode: opts.mode ?? 'form' };
  if (which === 'result') envelope.action = opts.action ?? 'accept';
  envelope[which] = textBody(text, `mcp-${which}`);
  return makeEvent(`user.elicitation.${which}`, { elicitation: envelope });
}

const checkEvent = (ev: Obj) => validate(`event:${String(ev.type)}`, ev);
const checkObserved = (ev: Obj) => validate('observe-notification', observeOf(ev));

/** A form request asking for one field. */
function formRequest(field: Obj, extra: Obj = {}): Obj {
  return {
    message: 'Please answer',
    requestedSchema: { type: 'object', properties: { value: field }, required: ['value'] },
    ...extra,
  };
}

const urlRequest = (): Obj => ({
  mode: 'url',
  message: 'Open this page',
  url: 'https://auth.example.com/start',
  elicitationId: 'el-1',
});

test.describe('4.1b inline elicitation events', () => {
  const choose = { message: 'Choose', requestedSchema: { type: 'object', properties: {} } };

  test('15a: a form request whose omitted mode defaults to the envelope mode is valid', () => {
    expectWireValid(checkEvent(elicitationEvent('request', choose, { mode: 'form' })));
    expectWireValid(checkObserved(elicitationEvent('request', choose, { mode: 'form' })));
  });

  test('15b: an envelope mode url disagrees with the default form mode', () => {
    const ev = elicitationEvent('request', choose, { mode: 'url' });
    expectWireInvalidAt(checkEvent(ev), '/elicitation/mode', 'elicitation.mode-mismatch');
    expectWireInvalidAt(checkObserved(ev), '/params/event/elicitation/mode', 'elicitation.mode-mismatch');
  });

  test('15c: a form request without requestedSchema breaks the MCP contract', () => {
    const ev = elicitationEvent('request', { message: 'missing schema' });
    expectWireInvalidAt(checkEvent(ev), '/elicitation/request/text', 'elicitation.mcp-contract');
    expectWireInvalidAt(checkObserved(ev), '/params/event/elicitation/request/text', 'elicitation.mcp-contract');
  });

  test('15d: a result whose action matches the envelope is valid', () => {
    expectWireValid(checkEvent(elicitationEvent('result', { action: 'accept' }, { action: 'accept' })));
    expectWireValid(checkObserved(elicitationEvent('result', { action: 'accept' }, { action: 'accept' })));
  });

  test('15e: a result action that disagrees with the envelope is rejected', () => {
    const ev = elicitationEvent('result', { action: 'decline' }, { action: 'accept' });
    expectWireInvalidAt(checkEvent(ev), '/elicitation/action', 'elicitation.action-mismatch');
    expectWireInvalidAt(checkObserved(ev), '/params/event/elicitation/action', 'elicitation.action-mismatch');
  });

  test('15f: content on an accepted url-mode result is rejected', () => {
    const ev = elicitationEvent('result', { action: 'accept', content: {} }, { mode: 'url', action: 'accept' });
    expectWireInvalidAt(checkEvent(ev), '/elicitation/result/text', 'elicitation.content-not-allowed');
    expectWireInvalidAt(checkObserved(ev), '/params/event/elicitation/result/text', 'elicitation.content-not-allowed');
  });

  test('15f (also): content on a declined form result is rejected, on an accepted form result it is fine', () => {
    const declined = elicitationEvent('result', { action: 'decline', content: { a: 'x' } }, { action: 'decline' });
    expectWireInvalidAt(checkEvent(declined), '/elicitation/result/text', 'elicitation.content-not-allowed');
    expectWireValid(
      checkEvent(elicitationEvent('result', { action: 'accept', content: { a: 'x' } }, { action: 'accept' })),
    );
  });

  test('15g: request text that is not JSON is rejected', () => {
    const ev = elicitationEvent('request', '{invalid');
    expectWireInvalidAt(checkEvent(ev), '/elicitation/request/text', 'elicitation.invalid-json');
    expectWireInvalidAt(checkObserved(ev), '/params/event/elicitation/request/text', 'elicitation.invalid-json');
  });

  test('15h: request text with a duplicate key is rejected', () => {
    const ev = elicitationEvent('request', '{"a":1,"a":2}');
    expectWireInvalidAt(checkEvent(ev), '/elicitation/request/text', 'elicitation.invalid-json');
    expectWireInvalidAt(checkObserved(ev), '/params/event/elicitation/request/text', 'elicitation.invalid-json');
  });

  test('15 (also): a non-finite number literal in the text is rejected', () => {
    const ev = elicitationEvent(
      'request',
      '{"message":"m","requestedSchema":{"type":"object","properties":{}},"n":NaN}',
    );
    expectWireInvalidAt(checkEvent(ev), '/elicitation/request/text', 'elicitation.invalid-json');
  });

  test('15 (also): strict JSON edges of the inline text', () => {
    const nestedDuplicate = '{"message":"m","requestedSchema":{"type":"object","type":"object","properties":{}}}';
    expectWireInvalidAt(
      checkEvent(elicitationEvent('request', nestedDuplicate)),
      '/elicitation/request/text',
      'elicitation.invalid-json',
    );
    expectWireInvalidAt(
      checkEvent(elicitationEvent('request', '')),
      '/elicitation/request/text',
      'elicitation.invalid-json',
    );
    expectWireInvalidAt(
      checkEvent(elicitationEvent('result', '{"action":"accept"} trailing')),
      '/elicitation/result/text',
      'elicitation.invalid-json',
    );
    // Surrounding JSON whitespace is fine.
    expectWireValid(checkEvent(elicitationEvent('result', '\n  {"action":"accept"}  \n')));
    // Valid JSON that is not an MCP object breaks the contract instead.
    expectWireInvalidAt(
      checkEvent(elicitationEvent('result', '["accept"]')),
      '/elicitation/result/text',
      'elicitation.mcp-contract',
    );
  });

  test('15 (also): the inline check applies to hooks/intercept requests and the aggregate kind', () => {
    const caps = { effects: ['deny', 'message'] };
    const good = elicitationEvent('request', choose);
    const bad = elicitationEvent('request', choose, { mode: 'url' });
    const request = (ev: Obj): Obj => ({
      jsonrpc: '2.0',
      id: ev.id,
      method: 'hooks/intercept',
      params: { protocolVersion: 'draft', event: ev, capabilities: caps },
    });
    expectWireValid(validate('intercept-request', request(good)));
    expectWireValid(validate('ahp', request(good)));
    expectWireInvalidAt(
      validate('intercept-request', request(bad)),
      '/params/event/elicitation/mode',
      'elicitation.mode-mismatch',
    );
    expectWireInvalidAt(validate('ahp', request(bad)), '/params/event/elicitation/mode', 'elicitation.mode-mismatch');
    expectWireInvalidAt(validate('ahp', observeOf(bad)), '/params/event/elicitation/mode', 'elicitation.mode-mismatch');
    expectWireInvalidAt(validate('event', bad), '/elicitation/mode', 'elicitation.mode-mismatch');
  });

  test('15 (also): an explicit payload mode must match too', () => {
    expectWireValid(checkEvent(elicitationEvent('request', { ...choose, mode: 'form' }, { mode: 'form' })));
    expectWireInvalidAt(
      checkEvent(elicitationEvent('request', { ...choose, mode: 'form' }, { mode: 'url' })),
      '/elicitation/mode',
      'elicitation.mode-mismatch',
    );
    expectWireInvalidAt(
      checkEvent(elicitationEvent('request', urlRequest(), { mode: 'form' })),
      '/elicitation/mode',
      'elicitation.mode-mismatch',
    );
  });

  test('15 (also): elicitationFindings works on bare events and on messages alike', () => {
    const ev = elicitationEvent('request', '{invalid');
    expect(elicitationFindings(ev).map((f) => f.path)).toEqual(['/elicitation/request/text']);
    expect(elicitationFindings(observeOf(ev)).map((f) => f.path)).toEqual(['/params/event/elicitation/request/text']);
    expect(elicitationFindings(elicitationEvent('request', choose))).toEqual([]);
    // Not an elicitation event: nothing to parse.
    expect(elicitationFindings(makeEvent('turn.end', {}))).toEqual([]);
  });

  // Case 16 (frozen dated snapshots keep their semantics) does not apply: we implement `draft` only.

  for (const which of ['request', 'result'] as const) {
    test(`17: ${which} metadata, omit and gap views are never parsed`, () => {
      const base = elicitationEvent(which, '', { action: 'accept' });
      const views: [string, (part: Obj) => void][] = [
        [
          'metadata',
          (p) => {
            p.selection = 'metadata';
          },
        ],
        [
          'omit',
          (p) => {
            p.selection = 'omit';
          },
        ],
        [
          'gap',
          (p) => {
            p.gap = { reason: 'permission_withheld' };
          },
        ],
      ];
      for (const [name, change] of views) {
        const ev = copy(base);
        const part = (ev.elicitation as Obj)[which] as Obj;
        delete part.text;
        change(part);
        expect(elicitationFindings(ev), name).toEqual([]);
        expectWireValid(checkEvent(ev));
        expectWireValid(checkObserved(ev));
      }
    });
  }
});

test.describe('4.2 pinned MCP elicitation contract', () => {
  const forms: [string, Obj][] = [
    [
      'string with email format, minLength and default',
      { type: 'string', format: 'email', minLength: 3, default: 'a@example.com' },
    ],
    ['integer with minimum, maximum and default', { type: 'integer', minimum: 1, maximum: 9, default: 4 }],
    ['number with a fractional default', { type: 'number', default: 1.5 }],
    ['boolean with a default', { type: 'boolean', default: true }],
    ['string enum', { type: 'string', enum: ['red', 'green'] }],
    [
      'string oneOf const/title',
      {
        type: 'string',
        oneOf: [
          { const: 'r', title: 'Red' },
          { const: 'g', title: 'Green' },
        ],
      },
    ],
    ['string enum with enumNames', { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] }],
    [
      'array of string-enum items with min/max items and default',
      {
        type: 'array',
        items: { type: 'string', enum: ['a', 'b', 'c'] },
        minItems: 1,
        maxItems: 2,
        default: ['a'],
      },
    ],
    [
      'array of anyOf const/title items with a default',
      {
        type: 'array',
        items: {
          anyOf: [
            { const: 'a', title: 'A' },
            { const: 'b', title: 'B' },
          ],
        },
        default: ['b'],
      },
    ],
  ];

  test('3: all nine published form field shapes are valid with and without mode form', () => {
    expect(forms).toHaveLength(9);
    for (const [name, field] of forms) {
      const withoutMode = formRequest(field);
      expect(isWireValid(validate('mcp-elicitation-request', withoutMode)), name).toBe(true);
      expect(isWireValid(validate('mcp-elicitation-request', { mode: 'form', ...withoutMode })), name).toBe(true);
      // The same payload inline in an event.
      expectWireValid(checkEvent(elicitationEvent('request', withoutMode)));
    }
  });

  test('3 (also): fractional number bounds are allowed where MCP says number', () => {
    expectWireValid(validate('mcp-elicitation-request', formRequest({ type: 'number', minimum: 0.5, maximum: 2.5 })));
    expectWireValid(validate('mcp-elicitation-request', formRequest({ type: 'string', minLength: 1.5 })));
  });

  const outsideVocabulary: [string, Obj][] = [
    ['object field', { type: 'object', properties: {} }],
    ['array of numbers', { type: 'array', items: { type: 'number' } }],
    ['string with pattern', { type: 'string', pattern: '^a' }],
    ['string enum of numbers', { type: 'string', enum: [1] }],
    ['string format password', { type: 'string', format: 'password' }],
  ];

  test('4: fields outside the published vocabulary are rejected', () => {
    for (const [name, field] of outsideVocabulary) {
      expect(isWireValid(validate('mcp-elicitation-request', formRequest(field))), name).toBe(false);
      // With the mode stated the form branch is unambiguous, so the finding names the field.
      expectWireInvalidAt(
        validate('mcp-elicitation-request', formRequest(field, { mode: 'form' })),
        '/requestedSchema/properties/value',
      );
      expectWireInvalidAt(
        checkEvent(elicitationEvent('request', formRequest(field))),
        '/elicitation/request/text',
        'elicitation.mcp-contract',
      );
    }
  });

  test('4: requestedSchema true and a form request without message are rejected', () => {
    expect(isWireValid(validate('mcp-elicitation-request', { message: 'm', requestedSchema: true }))).toBe(false);
    expectWireInvalidAt(
      validate('mcp-elicitation-request', { mode: 'form', message: 'm', requestedSchema: true }),
      '/requestedSchema',
      'schema.type',
    );
    expect(isWireValid(validate('mcp-elicitation-request', without(formRequest({ type: 'string' }), 'message')))).toBe(
      false,
    );
    const noMessage = validate(
      'mcp-elicitation-request',
      without(formRequest({ type: 'string' }, { mode: 'form' }), 'message'),
    );
    expectWireInvalidAt(noMessage, '', 'schema.required');
    expect(
      noMessage.some((f) => f.message.includes('"message"')),
      JSON.stringify(noMessage),
    ).toBe(true);
  });

  test('4/8: a mode-less form request is reported against the form branch', () => {
    // An optional tag (`mode: "form"` may be omitted) must not steer the explanation away from
    // the form branch: the finding points at the real defect.
    for (const [, field] of outsideVocabulary) {
      expectWireInvalidAt(validate('mcp-elicitation-request', formRequest(field)), '/requestedSchema/properties/value');
    }
    expectWireInvalidAt(
      validate('mcp-elicitation-request', { message: 'm', requestedSchema: true }),
      '/requestedSchema',
      'schema.type',
    );
    const noMessage = validate('mcp-elicitation-request', without(formRequest({ type: 'string' }), 'message'));
    expect(
      noMessage.some((f) => f.message.includes('"message"')),
      JSON.stringify(noMessage),
    ).toBe(true);
    const closed = formRequest({ type: 'string' });
    (closed.requestedSchema as Obj)['vendor.extension'] = true;
    expectWireInvalidAt(validate('mcp-elicitation-request', closed), '/requestedSchema/vendor.extension');
  });

  test('5: url mode needs mode, message, url and elicitationId', () => {
    expectWireValid(validate('mcp-elicitation-request', urlRequest()));
    expectWireValid(checkEvent(elicitationEvent('request', urlRequest(), { mode: 'url' })));
    for (const key of ['mode', 'message', 'url', 'elicitationId']) {
      const findings = validate('mcp-elicitation-request', without(urlRequest(), key));
      expect(isWireValid(findings), key).toBe(false);
      // Either the missing member is named, or (mode removed) the form branch is chosen and rejects the url fields.
      expect(
        findings.some((f) => f.message.includes(`"${key}"`) || f.message.includes('"requestedSchema"')),
        key,
      ).toBe(true);
    }
  });

  test('5: modes other than form and url are rejected', () => {
    for (const mode of ['browser', 'FORM', null]) {
      expectWireInvalidAt(validate('mcp-elicitation-request', { ...urlRequest(), mode }), '/mode');
      expectWireInvalidAt(validate('mcp-elicitation-request', { ...formRequest({ type: 'string' }), mode }), '/mode');
    }
  });

  test('6: results carry an action and optionally flat content', () => {
    for (const action of ['accept', 'decline', 'cancel']) {
      expectWireValid(validate('mcp-elicitation-result', { action }));
    }
    expectWireValid(
      validate('mcp-elicitation-result', {
        action: 'accept',
        content: { text: 'yes', number: 1.5, flag: false, choices: ['a'] },
      }),
    );
  });

  test('6: an unknown action, list content, nested content and non-string lists are rejected', () => {
    expectWireInvalidAt(validate('mcp-elicitation-result', { action: 'submitted' }), '/action');
    expectWireInvalidAt(validate('mcp-elicitation-result', { action: 'accept', content: [] }), '/content');
    expectWireInvalidAt(validate('mcp-elicitation-result', { action: 'accept', content: { nested: {} } }), '/content');
    expectWireInvalidAt(validate('mcp-elicitation-result', { action: 'accept', content: { bad: [1] } }), '/content');
  });

  test('7: selection-aware event views (request and result)', () => {
    const samples: Record<Which, Obj> = {
      request: elicitationEvent('request', formRequest({ type: 'string' })),
      result: elicitationEvent('result', { action: 'accept', content: { value: 'yes' } }),
    };
    for (const which of ['request', 'result'] as const) {
      const at = `/params/event/elicitation/${which}`;
      const mutate = (f: (elicitation: Obj, part: Obj) => void): Obj => {
        const ev = copy(samples[which]);
        const elicitation = ev.elicitation as Obj;
        f(elicitation, elicitation[which] as Obj);
        return observeOf(ev);
      };
      const check = (msg: Obj) => validate('observe-notification', msg);

      expectWireValid(check(observeOf(samples[which])));
      expectWireValid(
        check(
          mutate((_, p) => {
            delete p.text;
            p.selection = 'metadata';
          }),
        ),
      );
      expectWireValid(
        check(
          mutate((_, p) => {
            delete p.text;
            p.selection = 'omit';
          }),
        ),
      );
      expectWireInvalidAt(
        check(
          mutate((_, p) => {
            delete p.text;
          }),
        ),
        at,
      );
      expectWireValid(
        check(
          mutate((_, p) => {
            delete p.text;
            p.gap = { reason: 'permission_withheld' };
          }),
        ),
      );
      expectWireValid(
        check(
          mutate((e) => {
            delete e[which];
          }),
        ),
      );
      // An inline MCP object is not a content part.
      const raw = which === 'request' ? formRequest({ type: 'string' }) : { action: 'accept' };
      expectWireInvalidAt(
        check(
          mutate((e) => {
            e[which] = raw;
          }),
        ),
        at,
      );
    }
  });

  test('8: MCP params and results stay open; the requested schema is closed', () => {
    const extended = formRequest(
      { type: 'string' },
      { _meta: { 'vendor.custom': { x: 1 } }, 'vendor.extension': true },
    );
    expectWireValid(validate('mcp-elicitation-request', extended));
    expectWireValid(checkEvent(elicitationEvent('request', extended)));

    const closed = copy(extended);
    (closed.requestedSchema as Obj)['vendor.extension'] = true;
    expect(isWireValid(validate('mcp-elicitation-request', closed))).toBe(false);
    expectWireInvalidAt(
      validate('mcp-elicitation-request', { ...closed, mode: 'form' }),
      '/requestedSchema/vendor.extension',
      'schema.unknown-member',
    );
    expectWireInvalidAt(
      checkEvent(elicitationEvent('request', closed)),
      '/elicitation/request/text',
      'elicitation.mcp-contract',
    );

    expectWireValid(validate('mcp-elicitation-result', { action: 'cancel', 'vendor.extension': { y: 2 } }));
  });

  test('9: compaction boundaries offer different modify targets and return only before', () => {
    const modify = (target: string): Obj => ({
      effects: ['modify'],
      modify: { [target]: { replace: true, merge: false } },
    });
    expectWireValid(validate('capabilities:context.compact.before', modify('instructions')));
    expectWireInvalidAt(validate('capabilities:context.compact.before', modify('summary')), '/modify');
    expectWireValid(validate('capabilities:context.compact.after', modify('summary')));
    expectWireInvalidAt(validate('capabilities:context.compact.after', modify('instructions')), '/modify');
    expectWireValid(validate('capabilities:context.compact.before', { effects: ['return'] }));
    expectWireInvalidAt(validate('capabilities:context.compact.after', { effects: ['return'] }), '/effects');
  });

  test('11 (adapted): field names that are schema keywords are data, not schema nodes', () => {
    const request = {
      message: 'Keyword-named fields',
      requestedSchema: {
        type: 'object',
        properties: {
          required: { type: 'string' },
          oneOf: { type: 'boolean' },
          enum: { type: 'number', minimum: 0 },
          properties: { type: 'string', enum: ['x'] },
          $ref: { type: 'integer' },
        },
        required: ['required', 'oneOf', 'enum'],
      },
    };
    expectWireValid(validate('mcp-elicitation-request', request));
    expectWireValid(checkEvent(elicitationEvent('request', request)));
    // The fields themselves are still checked as form fields.
    const broken = copy(request);
    ((broken.requestedSchema as Obj).properties as Obj).required = { type: 'object' };
    expect(isWireValid(validate('mcp-elicitation-request', broken))).toBe(false);
  });
});
