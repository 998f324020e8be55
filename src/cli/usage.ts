// What `session-ledger` with no (or a wrong) command prints.
export const USAGE = `usage: session-ledger serve
       session-ledger replay (--session <id> | --conversation <key>) [--revision N | --at <ISO time>] [--tenant T]
       session-ledger events [--type T[,T...]]... [--session-key K] [--stream NAME] [--tenant T] [--from N] [--limit N] [--follow]
       session-ledger events --url http://host:3000 [--token X] (--follow | --limit N) [filters as above, but --tenant]
       session-ledger projections list
       session-ledger projections rebuild <name>
       session-ledger export [--out sessions.json] [--tenant T] | --url http://host:3000 [--token X]
       session-ledger import hermes <hermes home> [--dry-run] [--tenant T] [--gateway-id ID]

serve runs the service (as npm start). The other commands work on the stores the service's own configuration names
(EVENT_STORE_URL, DATABASE_URL, DATA_DIR, ...), without HTTP; on the embedded database stop the service first: one
process at a time may open a PGlite data folder (or use --url where offered). --token defaults to LEDGER_TOKEN.

replay      a session's or conversation's state folded from its first event (no cache, no snapshot), as
            GET /v1/sessions/{id}/state shows it
events      the log as JSON lines, filtered as GET /v1/events/stream filters it; --follow keeps tailing
projections list the read models and their lag; rebuild one from position 0 with a progress bar
export      the sessions index in Hermes' sessions.json shape
import      hermes: a Hermes gateway's sessions.json, state.db transcripts and cron/jobs.json as events;
            idempotent (a re-run imports nothing twice), prints a report`;
