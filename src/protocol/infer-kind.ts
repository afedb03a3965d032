// Which kind a captured value most likely is, from its own members.
import { METHODS } from './catalogue.js';
import { kindEntry } from './kinds.js';

export function inferKind(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'ahp';
  const v = value as Record<string, unknown>;
  if (typeof v.method === 'string') {
    if (v.method === METHODS.intercept) return 'intercept-request';
    if (v.method === METHODS.observe) return 'observe-notification';
    if (v.method === METHODS.capabilities) return 'capabilities-request';
    // A snapshot without hooks/configuration says so as one finding (kind.not-in-snapshot).
    if (v.method === METHODS.configuration) return 'configuration-request';
    return 'ahp';
  }
  if ('error' in v) return 'error-response';
  if ('result' in v) {
    const r = v.result as Record<string, unknown> | null;
    if (r && typeof r === 'object' && 'manifest' in r) return 'capabilities-response';
    if (r && typeof r === 'object' && 'configuration' in r && !('effects' in r)) return 'configuration-response';
    return 'intercept-response';
  }
  if ('hooks' in v) return 'registration';
  if (typeof v.type === 'string' && 'source' in v) return kindEntry(`event:${v.type}`) ? `event:${v.type}` : 'event';
  return 'ahp';
}
