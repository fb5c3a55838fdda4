// POST /mcp in the Worker, loaded on its first request (src/worker/lazy-route.ts).
export { answerMcp } from '../../edge/mcp.ts';
