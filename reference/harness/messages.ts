// JSON-RPC messages around events, and how they are framed per transport. Compact JSON
// everywhere: one line on stdio (AHP-STDIO-001), one object per HTTP body.
import { METHODS, PROTOCOL_VERSION } from '../../src/protocol/catalogue.js';
import { TOOL_BEFORE_CAPABILITIES, type AhpEvent } from './events.js';
import { NO_FAULT, type HarnessFault } from './faults.js';

export type Message = Record<string, unknown>;

const jsonrpc = (fault: HarnessFault): string => (fault.is('jsonrpc-1') ? '1.0' : '2.0');
const version = (fault: HarnessFault): string => (fault.is('version-0.1') ? '0.1' : PROTOCOL_VERSION);

function advertised(fault: HarnessFault, nothing: boolean): Message {
  if (fault.is('no-deny-capability')) return { ...TOOL_BEFORE_CAPABILITIES, effects: ['modify'] };
  if (nothing) return { effects: [] };
  return TOOL_BEFORE_CAPABILITIES;
}

/**
 * hooks/intercept for `event`; `rpcId` is the event id except under the id-differs fault.
 * `advertiseNothing`: the no-deny-when-host-refuses fault, for a call the host refuses.
 * `input-as-string` applies to tool.before only (the event whose content is the input).
 */
export function interceptMessage(
  event: AhpEvent,
  rpcId: string,
  fault: HarnessFault = NO_FAULT,
  advertiseNothing = false,
  /** A content boundary's own advertisement (the tool.before faults do not touch it). */
  capabilities?: Message,
): Message {
  let sent = event;
  if (event.type === 'tool.before' && fault.is('input-as-string')) {
    const tool = event.tool as Record<string, unknown>;
    sent = { ...event, tool: { ...tool, input: JSON.stringify(tool.input) } };
  }
  return {
    jsonrpc: jsonrpc(fault),
    id: rpcId,
    method: METHODS.intercept,
    params: {
      protocolVersion: version(fault),
      event: sent,
      capabilities: capabilities ?? advertised(fault, advertiseNothing),
    },
  };
}

/** hooks/observe: a notification, so no id (except under the observe-with-id fault). */
export function observeMessage(event: AhpEvent, fault: HarnessFault = NO_FAULT): Message {
  const msg: Message = { jsonrpc: jsonrpc(fault) };
  if (fault.is('observe-with-id')) msg.id = event.id;
  msg.method = METHODS.observe;
  msg.params = { protocolVersion: version(fault), event };
  return msg;
}

/** One stdio frame: compact JSON and LF (pretty-frames: indented over several lines). */
export function stdioFrame(msg: Message, fault: HarnessFault = NO_FAULT): string {
  return (fault.is('pretty-frames') ? JSON.stringify(msg, null, 2) : JSON.stringify(msg)) + '\n';
}

export function httpBody(msg: Message): string {
  return JSON.stringify(msg);
}
