// Email: one mail per alert through a real local SMTP server (smtp-server on 127.0.0.1:0).
import t from 'tap';
import { emailMessage, sendEmail } from '../../src/notify/email.ts';
import { freePort } from '../support/free-port.ts';
import { alert, notifyOptions, startSmtpReceiver } from './receivers.ts';

t.test(
  'sends a plain-text mail to the recipient, subject [Vigil SEVERITY] rule name',
  async (t) => {
    const smtp = await startSmtpReceiver(t);
    const result = await sendEmail(
      alert,
      { to: 'ops@example.com' },
      notifyOptions({ smtpUrl: smtp.url }),
    );
    t.match(result, { channel: 'email', ok: true, attempts: 1, status: 250 });
    t.equal(smtp.mails.length, 1);
    const [mail] = smtp.mails;
    t.equal(mail?.from, 'vigil@example.com');
    t.same(mail?.to, ['ops@example.com']);
    t.match(mail?.raw, /^Subject: \[Vigil CRITICAL\] High error rate\r?$/m);
    t.match(mail?.raw, /^To: ops@example\.com\r?$/m);
    t.match(mail?.raw, /^Content-Type: text\/plain/m);
    t.match(mail?.raw, 'Rule: High error rate (id 7, version 3)');
    t.match(mail?.raw, '  - errorRate 12.5 > 5');
    t.match(mail?.raw, '  errorRate = 12.5');
  },
);

t.test('several recipients and a custom subject', async (t) => {
  const smtp = await startSmtpReceiver(t);
  const result = await sendEmail(
    alert,
    { to: ['a@example.com', 'b@example.org'], subject: 'Checkout is failing' },
    notifyOptions({ smtpUrl: smtp.url }),
  );
  t.match(result, { ok: true, attempts: 1 });
  t.same(smtp.mails[0]?.to, ['a@example.com', 'b@example.org']);
  t.match(smtp.mails[0]?.raw, /^Subject: Checkout is failing\r?$/m);
});

t.test('no SMTP_URL: a failed result saying so, nothing thrown', async (t) => {
  const result = await sendEmail(alert, { to: 'ops@example.com' }, notifyOptions());
  t.match(result, {
    channel: 'email',
    ok: false,
    attempts: 0,
    error: 'SMTP_URL is not set: email notifications are disabled',
  });
});

t.test('a permanent refusal (5xx) is final; a transient one (4xx) is retried', async (t) => {
  const refusing = await startSmtpReceiver(t, () => 550);
  const refused = await sendEmail(
    alert,
    { to: 'nobody@example.com' },
    notifyOptions({ smtpUrl: refusing.url }),
  );
  t.match(refused, { ok: false, attempts: 1, status: 550 });
  t.equal(refused.error, 'SMTP 550', "the reply code alone, not the server's text");
  t.equal(refusing.mails.length, 0);

  const busy = await startSmtpReceiver(t, (n) => (n === 1 ? 451 : undefined));
  const retried = await sendEmail(
    alert,
    { to: 'ops@example.com' },
    notifyOptions({ smtpUrl: busy.url }),
  );
  t.match(retried, { ok: true, attempts: 2, status: 250 });
  t.equal(busy.mails.length, 1);
});

t.test('an unreachable relay is retried, then fails without throwing', async (t) => {
  const port = await freePort();
  const result = await sendEmail(
    alert,
    { to: 'ops@example.com' },
    notifyOptions({ smtpUrl: `smtp://127.0.0.1:${port}`, attempts: 2 }),
  );
  t.match(result, { ok: false, attempts: 2, error: 'connection to the SMTP server failed' });
});

t.test('subject lines cannot break the header', (t) => {
  const message = emailMessage(
    { ...alert, ruleName: 'a\r\nBcc: x@evil.example' },
    { to: 'ops@example.com' },
    'vigil@example.com',
  );
  t.equal(message.subject, '[Vigil CRITICAL] a Bcc: x@evil.example');
  t.end();
});
