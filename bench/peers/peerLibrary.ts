// What the peers part asks of an in-process session library: issue #33's three paths, on sessions it names.
export interface PeerLibrary<Session> {
  /** As the figures name it: `ADK`, `LangGraph`. */
  readonly name: string;
  /** What each path calls, as the figures describe it. */
  readonly calls: Record<PathName, string>;
  /** Starts the session of a new conversation named `name`; answers what the other paths need to find it. */
  createSession(name: string): Promise<Session>;
  /** Records a turn (the user's message and the model's reply) as the library's own runner does. */
  recordTurn(session: Session): Promise<void>;
  /** Reads the session as a runner would before a turn. */
  loadSession(session: Session): Promise<void>;
  close(): Promise<void>;
}

/** Issue #33's paths, in the order they are measured. */
export const PATH_NAMES = ['create', 'turn', 'load'] as const;
export type PathName = (typeof PATH_NAMES)[number];
