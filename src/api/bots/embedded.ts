/**
 * Embedded bots: bots the server runs itself instead of posting to a bot server (the
 * reference's EMBEDDED_BOTS, run by its embedded_bots worker with the zulip_bots library). Only
 * bots simple enough to carry over are offered; the config option `embeddedBotsEnabled` turns
 * them on, as the reference's EMBEDDED_BOTS_ENABLED does (off by default).
 */
export interface EmbeddedBot {
  name: string;
  /** The reply to a message's content (the mention already taken out). */
  reply(content: string): string;
}

const rot13 = (text: string) =>
  text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });

export const EMBEDDED_BOTS: readonly EmbeddedBot[] = [
  // zulip_bots' helloworld answers every message the same way.
  { name: 'helloworld', reply: () => 'beep boop' },
  // zulip_bots' encrypt: ROT13, which is its own inverse.
  { name: 'encrypt', reply: (content) => `Encrypted/Decrypted text: ${rot13(content)}` },
];

/** realm_embedded_bots of /register: each bot's name and configuration options (none here). */
export function realmEmbeddedBots(): { name: string; config: Record<string, string> }[] {
  return EMBEDDED_BOTS.map((bot) => ({ name: bot.name, config: {} }));
}
