// The Discord route module of the Worker variants that bundle their routes into the script
// (bench/lib/worker-startup.ts): the Worker as it was before the Discord app, so that those
// variants differ from each other by the MCP server alone.
export async function answerDiscord(): Promise<Response> {
  return new Response(null, { status: 404 });
}

export async function discordPublicKey(): Promise<CryptoKey> {
  throw new Error('this Worker has no Discord app (bench/lib/no-discord-route.ts)');
}
