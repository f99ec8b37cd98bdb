/**
 * Email over SMTP through nodemailer: plain text and HTML, credentials from
 * the environment. nodemailer is loaded at the first message: a serve that
 * sends no email starts without it.
 */
import type { NotificationsConfig } from '../../board/manifest.js';
import type { Message } from '../message.js';

type EmailConfig = NonNullable<NotificationsConfig['email']>;

/** Send one message; when `signal` fires first, the attempt fails (nodemailer cannot be aborted: its socket times out on its own). */
export async function sendEmail(cfg: EmailConfig, to: string, m: Message, signal: AbortSignal): Promise<void> {
  const user = cfg.smtp.userEnv ? process.env[cfg.smtp.userEnv] : undefined;
  const pass = cfg.smtp.passwordEnv ? process.env[cfg.smtp.passwordEnv] : undefined;
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: cfg.smtp.host,
    port: cfg.smtp.port ?? (cfg.smtp.secure ? 465 : 587),
    secure: cfg.smtp.secure ?? false,
    ...(user ? { auth: { user, pass: pass ?? '' } } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  try {
    const sent = transport.sendMail({ from: cfg.from, to, subject: m.subject, text: m.text, html: m.html });
    await new Promise<void>((resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      sent.then(() => resolve(), reject);
    });
  } finally {
    transport.close();
  }
}
