// POST /discord/interactions in the Worker, loaded on its first request (src/worker/lazy-route.ts).
export { answerDiscord, discordPublicKey } from '../../edge/discord/interactions.ts';
