// Slack: an incoming-webhook message with `text` and Block Kit `blocks`; user text escaped.
import t from 'tap';
import { sendSlack, slackMessage } from '../../src/notify/slack.ts';
import { alert, notifyOptions, startHttpReceiver } from './receivers.ts';

t.test('POSTs text plus header and section blocks to the webhook URL', async (t) => {
  const receiver = await startHttpReceiver(t, () => ({ status: 200, body: 'ok' }));
  const result = await sendSlack(
    alert,
    { webhookUrl: receiver.url, channel: '#ops' },
    notifyOptions(),
  );
  t.match(result, { channel: 'slack', ok: true, attempts: 1, status: 200 });
  const [request] = receiver.received;
  t.equal(request?.method, 'POST');
  t.equal(request?.headers['content-type'], 'application/json');
  const payload = JSON.parse(request?.body ?? '') as Record<string, unknown>;
  t.same(payload, {
    // Slack's mrkdwn wants &, < and > escaped; it shows them as typed.
    text: '[CRITICAL] High error rate: errorRate 12.5 &gt; 5',
    channel: '#ops',
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: 'CRITICAL: High error rate' } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: '*Severity*\nCRITICAL' },
          { type: 'mrkdwn', text: '*Triggered at*\n2026-11-22T19:30:00.123Z' },
        ],
      },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: '*Matched conditions*\n• errorRate 12.5 &gt; 5' },
      },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: '*Current values*\n• errorRate: 12.5\n• totalEvents: 80' },
      },
      { type: 'section', text: { type: 'mrkdwn', text: 'High error rate: errorRate 12.5 &gt; 5' } },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: 'Vigil alert #42 · rule #7 version 3' }],
      },
    ],
  });
});

t.test('user text cannot mention or link; long names fit the header limit', (t) => {
  const message = slackMessage(
    {
      ...alert,
      ruleName: `<!channel> & <https://evil.example|click> ${'x'.repeat(300)}`,
      matchedConditions: ['eventsByType[<!here>] 3 > 1'],
      message: '',
    },
    { webhookUrl: 'https://hooks.slack.com/services/T/B/x' },
  );
  t.notOk('channel' in message);
  t.notMatch(message.text, /<!/);
  t.match(message.text, '&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;');
  const header = message.blocks[0];
  t.ok(header?.type === 'header' && header.text.text.length <= 150);
  t.notMatch(JSON.stringify(message.blocks.slice(1)), /<!/);
  t.equal(message.blocks.length, 5, 'no message section when the message is empty');
  t.end();
});

t.test('long lists are cut with a count of the rest', (t) => {
  const currentValues = Object.fromEntries(
    Array.from({ length: 30 }, (_, i) => [`eventsByType[t${i}]`, i]),
  );
  const message = slackMessage(
    { ...alert, currentValues, matchedConditions: [] },
    { webhookUrl: 'https://x.test' },
  );
  const texts = JSON.stringify(message.blocks);
  t.match(texts, '… and 10 more');
  t.match(texts, '*Matched conditions*\\n_none_');
  t.end();
});
