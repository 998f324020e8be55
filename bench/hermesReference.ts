// Hermes' own SessionStore (gateway/session.py) as issue #20 quotes it: the reference the HTTP and peers parts print.
/** 500 conversations created, 2 turns each, then a warm resolve each, 16 clients, on the same kind of machine. */
export const HERMES = { conversations: 500, turnsEach: 2, createsPerSecond: 36, turnsPerSecond: 18, warmResolvesPerSecond: 19, target: 100 };
