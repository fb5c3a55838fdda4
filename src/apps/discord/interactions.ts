// POST /discord/interactions: Discord's interactions endpoint, for a deployment configured with
// the application's public key (DISCORD_PUBLIC_KEY). Web-standard Request -> Response, so the
// Node server and the Worker answer alike, each loading this module at its first /discord
// request. The signature is the credential (no API token): it is checked before anything of
// the request is read but its headers and the body's length, and whatever fails that check
// gets the same 401. Only then is the body parsed and the interaction answered (answers.ts).
import type { APIInteractionResponse } from 'discord-api-types/v10';
import { DISCORD_MAX_BODY_BYTES, INTERACTION, RESPONSE } from './commands.ts';
import { errorBody } from '../../contract/messages.ts';
import { isJsonObject } from '../../contract/json-object.ts';
import type { RouteIndex } from '../../contract/resolve.ts';
import { DISCORD_ERROR_HEADERS as HEADERS, discordNotAllowed } from './bounds.ts';
import { autocompleteAnswer, type CommandOption, commandAnswer, componentAnswer, privateMessage } from './answers.ts';
import { echo } from './echo.ts';
import { linkOrigin } from './origin.ts';
import { signatureBytes, signedBy } from './signature.ts';

export { discordPublicKey } from './signature.ts';

const failure = (status: number, message: string, extra: Record<string, string> = {}) =>
  new Response(errorBody(message), { status, headers: { ...HEADERS, ...extra } });

const UNSIGNED = 'The request is not signed by this Discord application (X-Signature-Ed25519, X-Signature-Timestamp).';
const TOO_LARGE = `The body is over ${DISCORD_MAX_BODY_BYTES} bytes: an interaction is never that large.`;

/** The body's bytes, read no further than `limit`; 'too large' past it. */
async function boundedBody(request: Request, limit: number): Promise<Uint8Array | 'too large'> {
  if (Number(request.headers.get('content-length')) > limit) return 'too large';
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    if (length > limit) {
      await reader.cancel();
      return 'too large';
    }
    chunks.push(value);
  }
  const body = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.length;
  }
  return body;
}

/** The Response to a request to /discord/interactions, `key` being the application's public key. */
export async function answerDiscord(request: Request, index: RouteIndex, key: CryptoKey): Promise<Response> {
  if (request.method !== 'POST') return discordNotAllowed(request.method);
  const signature = signatureBytes(request.headers.get('x-signature-ed25519') ?? '');
  const timestamp = request.headers.get('x-signature-timestamp');
  if (!signature || !timestamp) return failure(401, UNSIGNED);
  const body = await boundedBody(request, DISCORD_MAX_BODY_BYTES);
  if (body === 'too large') return failure(413, TOO_LARGE, { Connection: 'close' });
  if (!(await signedBy(key, signature, timestamp, body))) return failure(401, UNSIGNED);
  let interaction: unknown;
  try {
    interaction = JSON.parse(new TextDecoder().decode(body));
  } catch (error) {
    return failure(400, `The body is not JSON (${(error as Error).message}).`);
  }
  if (!isJsonObject(interaction)) return failure(400, 'The body is not an interaction (a JSON object with a "type").');
  const answer = await answerInteraction(interaction, index, request.url);
  return new Response(JSON.stringify(answer), { headers: HEADERS });
}

/** The command's name and options of an interaction's `data`, as far as they are what Discord sends. */
function commandOf(data: unknown): { name: string; options: CommandOption[] } {
  const { name, options } = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const listed = Array.isArray(options) ? options : [];
  return {
    name: typeof name === 'string' ? name : '',
    options: listed.filter(
      (option): option is CommandOption =>
        typeof option === 'object' && option !== null && typeof (option as { name?: unknown }).name === 'string',
    ),
  };
}

async function answerInteraction(
  interaction: Record<string, unknown>,
  index: RouteIndex,
  url: string,
): Promise<APIInteractionResponse> {
  const type = interaction['type'];
  if (type === INTERACTION.ping) return { type: RESPONSE.pong };
  const data = interaction['data'];
  const { name, options } = commandOf(data);
  if (type === INTERACTION.autocomplete) return autocompleteAnswer(index, name, options);
  if (type === INTERACTION.command)
    return commandAnswer({ index, origin: await linkOrigin(index, url) }, name, options);
  if (type === INTERACTION.component)
    return componentAnswer(
      { index, origin: await linkOrigin(index, url) },
      isJsonObject(data) ? data['custom_id'] : undefined,
    );
  return privateMessage(
    `This app does not support interactions of type ${echo(JSON.stringify(type) ?? 'none')}: it answers ` +
      'slash commands, their autocomplete and its buttons.',
  );
}
