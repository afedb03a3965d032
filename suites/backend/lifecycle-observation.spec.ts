// Lifecycle Observation profile, backend side.
import { lifecycleEvents, observeNotification } from '../../src/checks/probes.js';
import { check, test } from '../support/check.js';
import { clip } from '../support/expect.js';

test(
  ...check('lo.observe-silence', async ({ backend, judge }) => {
    for (const event of lifecycleEvents()) {
      const note = observeNotification(event);
      const outcome = await backend.notify(note);
      if (outcome.undetermined)
        return judge.incomplete(`the ${String(event.type)} observation: ${outcome.detail}`, {
          sent: note,
          received: outcome.detail,
          expected: 'no JSON-RPC response to a hooks/observe notification',
        });
      if (!outcome.silent) {
        judge.fail(`the ${String(event.type)} observation got a reply: ${clip(outcome.got ?? outcome.detail, 300)}`, {
          sent: note,
          received: outcome.got ?? outcome.detail,
          expected: 'no JSON-RPC response to a hooks/observe notification',
        });
      }
    }
  }),
);
