export { mcpFixturePath, mcpFixtureCommand, MCP_FIXTURE_MARKER, type McpFixtureOptions, type McpFixtureLogEntry } from "./mcp-fixture.js";
export { readMcpFixtureLog } from "./read-log.js";
