// The reference backend's policy: a short ordered list of rules, the first match wins.
//
//   { "rules": [
//       { "event": "tool.before", "tool": "rm_rf", "deny": { "reason": "…", "code": "com.example.x" } },
//       { "event": "tool.before", "tool": "write_file", "mergeInput": { "mode": "0644" } } ] }
//
// A rule matches an event of type `event` (and, if `tool` is given, whose tool.name is
// exactly `tool`). `deny` proposes one deny effect. `mergeInput` proposes, in order of
// preference, a merge of the patch into the tool input and a replace of the input with
// the patched copy; the handler keeps the first proposal the request advertises.
// `editContent` (a content boundary, src/checks/boundaries.ts) is a note the backend adds to
// the boundary's content where the request lets it edit (reference/backend/content.ts).
import { BOUNDARIES } from '../../src/checks/boundaries.js';
import { eventSpec, REVERSE_DNS_PATTERN } from '../../src/protocol/catalogue.js';
import { isObject, parseJsonBytes, type JsonObject, type JsonValue } from '../../src/protocol/json.js';
import { readFileSync } from 'node:fs';

export interface DenyAction {
  readonly reason: string;
  readonly code?: string;
}

export interface PolicyRule {
  readonly event: string;
  readonly tool?: string;
  readonly deny?: DenyAction;
  readonly mergeInput?: JsonObject;
  readonly editContent?: string;
}

export interface Policy {
  readonly rules: readonly PolicyRule[];
}

export const DEFAULT_POLICY: Policy = {
  rules: [
    {
      event: 'tool.before',
      tool: 'rm_rf',
      deny: { reason: 'rm_rf is never allowed', code: 'com.example.reference.dangerous_delete' },
    },
    { event: 'tool.before', tool: 'write_file', mergeInput: { mode: '0644' } },
    // Every content boundary with a modify target: the samples of backend.samples.content.
    ...BOUNDARIES.filter((b) => b.target).map((b) => ({
      event: b.event,
      editContent: `checked by the reference backend at ${b.event}`,
    })),
  ],
};

/** One effect a rule proposes; `patch` is the merge patch a modify proposal came from. */
export interface Proposal {
  readonly effect: JsonObject;
  readonly patch?: JsonObject;
}

const reverseDns = new RegExp(REVERSE_DNS_PATTERN);

/** The first rule matching this event, if any. */
export function matchRule(policy: Policy, event: Record<string, unknown>): PolicyRule | undefined {
  const toolName = isObject(event.tool) ? event.tool.name : undefined;
  return policy.rules.find((r) => r.event === event.type && (r.tool === undefined || r.tool === toolName));
}

/** The effects a rule proposes for this event, most preferred first. */
export function proposals(rule: PolicyRule, event: Record<string, unknown>): Proposal[] {
  if (rule.deny) {
    const deny: JsonObject = { type: 'deny', reason: rule.deny.reason };
    if (rule.deny.code !== undefined) deny.code = rule.deny.code;
    return [{ effect: deny }];
  }
  if (rule.mergeInput) {
    const patch = rule.mergeInput;
    const input = isObject(event.tool) && isObject(event.tool.input) ? (event.tool.input as JsonObject) : {};
    return [
      { effect: { type: 'modify', target: 'input', operation: 'merge', value: { ...patch } }, patch },
      { effect: { type: 'modify', target: 'input', operation: 'replace', value: { ...input, ...patch } }, patch },
    ];
  }
  return [];
}

export type PolicyResult = { ok: true; policy: Policy } | { ok: false; error: string };

const RULE_KEYS = new Set(['event', 'tool', 'deny', 'mergeInput', 'editContent']);
const DENY_KEYS = new Set(['reason', 'code']);

/** Check a parsed policy document; unknown keys are refused so that typos do not pass silently. */
export function parsePolicy(doc: unknown): PolicyResult {
  const fail = (error: string): PolicyResult => ({ ok: false, error });
  if (!isObject(doc)) return fail('policy must be a JSON object');
  for (const k of Object.keys(doc)) if (k !== 'rules') return fail(`policy: unknown member "${k}"`);
  if (!Array.isArray(doc.rules)) return fail('policy: "rules" must be an array');
  const rules: PolicyRule[] = [];
  for (const [i, raw] of doc.rules.entries()) {
    const at = `policy.rules[${i}]`;
    if (!isObject(raw)) return fail(`${at} must be an object`);
    for (const k of Object.keys(raw)) if (!RULE_KEYS.has(k)) return fail(`${at}: unknown member "${k}"`);
    const spec = typeof raw.event === 'string' ? eventSpec(raw.event) : undefined;
    if (!spec || !spec.interceptable) return fail(`${at}.event must name an interceptable event type`);
    if (raw.tool !== undefined && typeof raw.tool !== 'string') return fail(`${at}.tool must be a string`);
    if ([raw.deny, raw.mergeInput, raw.editContent].filter((x) => x !== undefined).length !== 1)
      return fail(`${at} needs exactly one of "deny", "mergeInput" and "editContent"`);
    const rule: { event: string; tool?: string; deny?: DenyAction; mergeInput?: JsonObject; editContent?: string } = {
      event: spec.type,
    };
    if (typeof raw.tool === 'string') rule.tool = raw.tool;
    if (raw.editContent !== undefined) {
      if (!BOUNDARIES.some((b) => b.event === spec.type && b.target))
        return fail(`${at}: ${spec.type} is no content boundary with a modify target`);
      if (typeof raw.editContent !== 'string' || raw.editContent === '')
        return fail(`${at}.editContent must be a non-empty string`);
      rule.editContent = raw.editContent;
    } else if (raw.deny !== undefined) {
      const d = raw.deny;
      if (!spec.effects.includes('deny')) return fail(`${at}: ${spec.type} cannot be denied`);
      if (!isObject(d)) return fail(`${at}.deny must be an object`);
      for (const k of Object.keys(d)) if (!DENY_KEYS.has(k)) return fail(`${at}.deny: unknown member "${k}"`);
      if (typeof d.reason !== 'string' || d.reason === '') return fail(`${at}.deny.reason must be a non-empty string`);
      if (d.code !== undefined && (typeof d.code !== 'string' || !reverseDns.test(d.code))) {
        return fail(`${at}.deny.code must be a reverse-DNS name`);
      }
      rule.deny = typeof d.code === 'string' ? { reason: d.reason, code: d.code } : { reason: d.reason };
    } else {
      if (!spec.modifyTargets.includes('input')) return fail(`${at}: ${spec.type} has no modifiable input`);
      if (!isObject(raw.mergeInput)) return fail(`${at}.mergeInput must be an object`);
      rule.mergeInput = raw.mergeInput as JsonObject;
    }
    rules.push(rule);
  }
  return { ok: true, policy: { rules } };
}

/** Read and check a policy file (strict JSON). */
export function loadPolicyFile(path: string): PolicyResult {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    return { ok: false, error: `cannot read policy file ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}` };
  }
  const parsed = parseJsonBytes(bytes);
  if (!parsed.ok) return { ok: false, error: `policy file ${path}: ${parsed.findings[0]?.message ?? 'not JSON'}` };
  return parsePolicy(parsed.value);
}
