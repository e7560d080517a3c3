// An MCP client on the official TypeScript SDK: it starts `ocfetch mcp`
// over stdio (argv: the ocfetch binary, then its arguments), lists the
// tools, calls search with the query in OCFETCH_TEST_QUERY, and prints one
// JSON object {tools, result} on stdout. Used by TestMCPTypeScriptClient.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "ocfetch-ts-test", version: "0.0.0" });
await client.connect(transport);
try {
  const { tools } = await client.listTools();
  const result = await client.callTool({ name: "search", arguments: { query: process.env.OCFETCH_TEST_QUERY, count: 2 } });
  process.stdout.write(JSON.stringify({ tools: tools.map((t) => t.name).sort(), result }) + "\n");
} finally {
  await client.close();
}
