// What `session-ledger --help` and `session-ledger <command> --help` print, and the exit codes every command keeps.

export const COMMAND_USAGE = {
  serve: `usage: session-ledger serve

Runs the service, as npm start does. It takes no options: configure it with environment variables (PORT, HOST,
DATA_DIR, EVENT_STORE_URL, ...; see the README's configuration table). SIGTERM or SIGINT stops it gracefully.`,
  replay: `usage: session-ledger replay (--session <id> | --conversation <key>) [--revision N | --at <ISO time>] [--tenant T]

A session's or conversation's state folded from its first event (no cache, no snapshot), as
GET /v1/sessions/{id}/state shows it. Without --revision or --at: everything recorded so far.`,
  events: `usage: session-ledger events [--type T[,T...]]... [--session-key K] [--stream NAME] [--tenant T] [--from N] [--limit N] [--follow]
       session-ledger events --url http://host:3000 [--token X] (--follow | --limit N) [filters as above, but --tenant]

The log as JSON lines, filtered as GET /v1/events/stream filters it (--type takes the lifecycle event types that
stream names); --follow keeps tailing until interrupted. --url reads a running service's stream instead of the stores.`,
  projections: `usage: session-ledger projections list
       session-ledger projections rebuild <name>

list: each read model's stored position, the head of the log, its lag, and the state its owner last stored
(this command runs no projection). rebuild: empties one read model and replays it from position 0, with a progress
bar (plain lines when stderr is not a terminal).`,
  export: `usage: session-ledger export [--out sessions.json] [--tenant T]
       session-ledger export --url http://host:3000 [--token X] [--out sessions.json]

The sessions index in Hermes' sessions.json shape, on stdout or written to --out (aside, then renamed).`,
  import: `usage: session-ledger import hermes <hermes home> [--dry-run] [--tenant T] [--gateway-id ID]

A Hermes gateway's sessions.json, state.db transcripts and cron/jobs.json as events. Idempotent: a re-run imports
nothing twice. Prints a JSON report on stdout and a summary on stderr; --dry-run writes nothing.`,
  search: `usage: session-ledger search "<words>" [--session-key K] [--session-id ID] [--platform P] [--role R]
           [--since <ISO time>] [--until <ISO time>] [--limit N] [--cursor C] [--by-session]
           [--include-deleted] [--include-rolled-back] [--json] [--tenant T]
       session-ledger search --url http://host:3000 [--token X] "<words>" [options as above, but --tenant]

Full-text search over transcripts, as GET /v1/search answers it: words, "quoted phrases", -excluded, OR; Chinese
and other unsegmented text too. Prints each hit's session, turn, message and snippet (matches between >>> and <<<),
or with --by-session the best sessions with their best hits; --json prints the answer as the API gives it.`,
  mcp: `usage: session-ledger mcp --url http://host:3000 [--token X]

The ledger's MCP server (Model Context Protocol) on stdin and stdout, for an agent host such as Claude Code or
Claude Desktop: tools to search, read, list and inspect past sessions and, with a write token, to checkpoint, roll
back and fork them. It talks to the running service at --url (default LEDGER_URL) with --token (default
LEDGER_TOKEN) and offers the tools that token's scope allows. Logs go to stderr. See docs/mcp.md.`,
} as const;

export type CommandName = keyof typeof COMMAND_USAGE;

export const isCommandName = (name: string): name is CommandName => Object.hasOwn(COMMAND_USAGE, name);

export const EXIT_CODES = `exit codes: 0 done; 1 failed (a projection failed, the service did not answer, anything unexpected);
            2 the command line or a value in it is wrong; 3 what it names does not exist;
            4 refused for now: the data folder is in use by another process, a conflict, or a read model not caught up`;

export const USAGE = `usage: session-ledger <command> [options]     session-ledger <command> --help for one command's options

commands:
  serve         the service, as npm start
  replay        a session's or conversation's state folded from the log alone
  events        the log as JSON lines, filtered; --follow keeps tailing
  projections   list the read models and their lag; rebuild one from position 0
  export        the sessions index in Hermes' sessions.json shape
  import        hermes: a Hermes gateway's sessions, transcripts and jobs as events
  search        full-text search over transcripts
  mcp           the MCP server on stdio, for agent hosts (Claude Code, Claude Desktop, ...)

The commands but serve and mcp work on the stores the service's own configuration names (EVENT_STORE_URL, DATABASE_URL,
DATA_DIR, ...), without HTTP. On the embedded database one process at a time may open a data folder: stop the
service first, or use --url where a command offers it. --token defaults to LEDGER_TOKEN.

${EXIT_CODES}`;
