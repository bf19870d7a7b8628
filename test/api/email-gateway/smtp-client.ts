import { connect } from 'node:net';

/**
 * A minimal SMTP client (RFC 5321): one session, one message, replies checked as they come.
 * Returns each command's reply line (code first), stopping at the first 4xx/5xx.
 */
export async function sendMail(port: number, from: string, to: string[], message: string): Promise<string[]> {
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  let buffer = '';
  const waiters: ((line: string) => void)[] = [];
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    // A reply ends with a line whose code is followed by a space.
    for (let m = /^(\d{3}) .*\r\n/m.exec(buffer); m; m = /^(\d{3}) .*\r\n/m.exec(buffer)) {
      const end = m.index + m[0].length;
      const line = m[0].trim();
      buffer = buffer.slice(end);
      waiters.shift()?.(line);
    }
  });
  const reply = () => new Promise<string>((resolve) => waiters.push(resolve));
  const replies: string[] = [];
  const step = async (command: string | null) => {
    const next = reply();
    if (command !== null) socket.write(`${command}\r\n`);
    const line = await next;
    replies.push(line);
    return Number(line.slice(0, 3)) < 400;
  };
  try {
    if (!(await step(null))) return replies;
    if (!(await step('EHLO client.example'))) return replies;
    if (!(await step(`MAIL FROM:<${from}>`))) return replies;
    for (const rcpt of to) if (!(await step(`RCPT TO:<${rcpt}>`))) return replies;
    if (!(await step('DATA'))) return replies;
    const body = message.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
    await step(`${body}\r\n.`);
    await step('QUIT');
    return replies;
  } finally {
    socket.destroy();
  }
}
