// The /mcp route module of the Worker without /mcp (bench/lib/worker-startup.ts): the Worker as it
// was before MCP, with the same shape, so the two builds differ by the MCP server alone.
export async function answerMcp(): Promise<Response> {
  return new Response(null, { status: 404 });
}
