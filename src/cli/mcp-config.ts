/**
 * Paste-ready MCP client configuration for one agent, for each client we
 * know: the stdio form launches this very `workboard` by absolute paths (so
 * it works whatever the client's PATH), the HTTP form names the URL and the
 * bearer token. Pure: everything machine-specific is passed in.
 */
export const CLIENTS = ['json', 'claude', 'cursor', 'vscode', 'codex'] as const;
export type Client = (typeof CLIENTS)[number];

export type Target = { kind: 'stdio'; node: string; bin: string; agent: string; board: string } | { kind: 'http'; url: string; token: string };

/** The server's entry name in every client's configuration. */
const NAME = 'workboard';

/** The variable Codex reads the bearer token from (Codex takes no token written in its file). */
export const CODEX_TOKEN_VAR = 'WORKBOARD_TOKEN';

function stdioArgs(t: Extract<Target, { kind: 'stdio' }>): string[] {
  return [t.bin, 'mcp', '--as', t.agent, '--board', t.board];
}

/** A word for a POSIX shell: bare when safe, else single-quoted. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

const toml = (s: string) => JSON.stringify(s);
const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

export function mcpConfig(client: Client, t: Target): string {
  const auth = t.kind === 'http' ? { Authorization: `Bearer ${t.token}` } : null;
  switch (client) {
    case 'claude':
      return t.kind === 'stdio'
        ? `claude mcp add ${NAME} -- ${[t.node, ...stdioArgs(t)].map(shellWord).join(' ')}\n`
        : `claude mcp add --transport http ${NAME} ${shellWord(t.url)} --header ${shellWord(`Authorization: Bearer ${t.token}`)}\n`;
    case 'vscode':
      return json({ servers: { [NAME]: t.kind === 'stdio' ? { type: 'stdio', command: t.node, args: stdioArgs(t) } : { type: 'http', url: t.url, headers: auth } } });
    case 'codex':
      return t.kind === 'stdio'
        ? `[mcp_servers.${NAME}]\ncommand = ${toml(t.node)}\nargs = [${stdioArgs(t).map(toml).join(', ')}]\n`
        : `# export ${CODEX_TOKEN_VAR}=${t.token}   (in the environment Codex starts from)\n[mcp_servers.${NAME}]\nurl = ${toml(t.url)}\nbearer_token_env_var = ${toml(CODEX_TOKEN_VAR)}\n`;
    case 'cursor':
    case 'json':
      return json({ mcpServers: { [NAME]: t.kind === 'stdio' ? { command: t.node, args: stdioArgs(t) } : { url: t.url, headers: auth } } });
  }
}

/** Where each client keeps the configuration, said on stderr beside it. */
export const WHERE: Record<Client, string> = {
  json: 'the mcpServers object most clients read (Claude Desktop, Windsurf, Cline, …)',
  claude: 'run it once: Claude Code keeps the server in its own settings',
  cursor: '.cursor/mcp.json in the project, or ~/.cursor/mcp.json',
  vscode: '.vscode/mcp.json in the workspace',
  codex: '~/.codex/config.toml, or .codex/config.toml in a trusted project',
};
