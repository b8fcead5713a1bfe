// The explanation in words (issue 18) reaches every channel: the webhook body carries the alert's
// `explanationText` and `explanation`, Slack a "Why" section, e-mail a "Why:" line; an alert
// without one (stored before the lifecycle) reads as before.
import t from 'tap';
import { emailMessage } from '../../src/notify/email.ts';
import { slackMessage } from '../../src/notify/slack.ts';
import { alert } from './receivers.ts';

const slack = { webhookUrl: 'https://hooks.example.com/x' };
const explained = { ...alert, explanationText: 'errorRate over 5 min = 12.5 > 5' };

void t.test('Slack: a Why section with the explanation, escaped', (t) => {
  const blocks = slackMessage(explained, slack).blocks;
  t.ok(
    blocks.some(
      (b) => b.type === 'section' && b.text?.text === '*Why*\nerrorRate over 5 min = 12.5 &gt; 5',
    ),
  );
  t.equal(slackMessage(alert, slack).blocks.length, blocks.length - 1, 'none without a text');
  t.end();
});

void t.test('e-mail: a Why line', (t) => {
  const text = emailMessage(explained, { to: ['ops@example.com'] }, 'vigil@example.com').text;
  t.match(text, /\nWhy: errorRate over 5 min = 12\.5 > 5\n/);
  t.notMatch(emailMessage(alert, { to: ['ops@example.com'] }, 'vigil@example.com').text, /Why:/);
  t.end();
});
