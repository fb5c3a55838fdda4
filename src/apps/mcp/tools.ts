// The MCP tools, what an AI assistant may ask of the data, each read-only: their contract
// (tool-schemas.ts) and their answers (tool-answers.ts), one module for their users (the MCP
// server, the Discord app, the docs).
export * from './tool-answers.ts';
export * from './tool-schemas.ts';
