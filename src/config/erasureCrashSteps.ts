// Test-only fault points of an erasure (ERASURE_TEST_CRASH_AT): after each step the process can kill itself with
// SIGKILL, so the crash tests cut an erasure exactly there. Never set in service.

/** The steps, in the order an erasure takes them (src/modules/erasure/commands/eraseConversation.ts). */
export const erasureCrashSteps = [
  /** The rewrite committed with its PersonalDataErased record; nothing after. */
  'recorded',
  /** The person's sessions destroyed and jobs removed. */
  'closed',
  /** The settle passes rewrote late writes; caches and snapshots dropped. */
  'settled',
  /** Every read model emptied and set back to position 0; not replayed yet. */
  'rebuilt',
  /** PersonalDataErasureCompleted appended; the request not answered yet. */
  'completed',
] as const;

export type ErasureCrashStep = (typeof erasureCrashSteps)[number];
