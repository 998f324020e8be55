// Hermes' SessionResetPolicy as it is stored with a conversation: field for field, in Hermes' own names.

export const resetModes = ['none', 'idle', 'daily', 'both'] as const;
export type ResetMode = (typeof resetModes)[number];

/** Why a session was reset automatically by its policy (Hermes' auto_reset_reason). */
export type AutoResetReason = 'idle' | 'daily';

export interface ResetPolicy {
  mode: ResetMode;
  /** Hour of the daily reset, 0-23, in SESSION_RESET_TIMEZONE. */
  at_hour: number;
  /** Inactivity before an idle reset; fractions allowed. */
  idle_minutes: number;
  /** Whether a resolve that reset the session carries a notice for the user. */
  notify: boolean;
  notify_exclude_platforms: string[];
  /** A background process at least this old no longer keeps the session from resetting; 0: any live process does. */
  bg_process_max_age_hours: number;
}
