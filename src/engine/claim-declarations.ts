// What a claim says beyond role, transports and profiles, recorded with the plan so the
// results can hold it against what the implementation did (src/results/over-claim.ts).
import type { ResolvedClaim } from '../claims/load.js';
import type { ClaimDeclarations } from '../results/over-claim.js';

export function claimDeclarations(claim: ResolvedClaim): ClaimDeclarations {
  const h = claim.harness;
  const b = claim.backend;
  return {
    ...(h
      ? {
          harness: {
            boundaries: [...h.boundaries],
            uploads: h.uploads,
            ...(h.authentication ? { authentication: [...h.authentication] } : {}),
          },
        }
      : {}),
    ...(b
      ? {
          backend: {
            configuration: b.configuration,
            samples: {
              deny: b.samples.deny.length,
              modify: b.samples.modify.length,
              content: [...new Set(b.samples.content.map((s) => s.event))],
            },
          },
        }
      : {}),
  };
}
