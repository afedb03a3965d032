// TEMPORARY stand-in until the staleness branch lands (it replaces this file).
export function attestedRequirements(
  _snapshot: string,
  _checkIds: readonly string[],
): { id: string; textSha256: string; checks: string[] }[] {
  return [];
}
