// Injection tokens for the infrastructure the Nest modules share.
export const CONFIG = Symbol('LedgerConfig');
export const LOGGER = Symbol('Logger');
export const EVENT_STORE = Symbol('EventStore');
export const READ_MODELS = Symbol('ReadModels');
export const PROJECTIONS = Symbol('ProjectionRunner');
export const CLOCK = Symbol('Clock');
export const STATE_CACHE = Symbol('StateCache');
/** The PostgreSQL log's read horizon (LogHorizonProbe), or null on backends without one (PGlite, EventStoreDB). */
export const LOG_HORIZON = Symbol('LogHorizon');
/** Every server-sent event stream of the instance (ServerSentEventStreams): one tail reader, one set of limits. */
export const EVENT_STREAMS = Symbol('EventStreams');
