// The turn every write figure records, the same for the ledger and the libraries it is compared with: a user's
// message, the model's reply, and what the reply cost.
export const TURN = {
  user: 'could you check why the nightly build failed and summarise it for me?',
  reply: 'the nightly build failed in the e2e stage: a fixture server did not start in time; a rerun passed.',
  usage: { inputTokens: 1_400, outputTokens: 120, costUsd: 0.0031 },
} as const;
