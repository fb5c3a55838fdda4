// An Ed25519 key pair made for a test, signing as Discord signs an interaction: the hex
// signature of X-Signature-Timestamp followed by the body, with the hex public key a
// deployment's DISCORD_PUBLIC_KEY holds.

export const hex = (bytes: Uint8Array): string =>
  Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

export interface DiscordKeys {
  /** The public key as Discord's portal shows it: 64 hex digits. */
  publicKeyHex: string;
  /** The hex signature of `message` (the timestamp followed by the body). */
  sign(message: string): Promise<string>;
}

export async function discordKeys(): Promise<DiscordKeys> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const publicKeyHex = hex(new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey)));
  return {
    publicKeyHex,
    sign: async (message) =>
      hex(
        new Uint8Array(
          await crypto.subtle.sign({ name: 'Ed25519' }, pair.privateKey, new TextEncoder().encode(message)),
        ),
      ),
  };
}
