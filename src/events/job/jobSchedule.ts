// A job's schedule as its events store it: a cron expression, a fixed interval from an anchor, or one instant.

export type Schedule =
  /** Five cron fields, read on the wall clock of the job's time zone. */
  | { kind: 'cron'; expression: string }
  /** Slots at anchor + k·everyMs (k ≥ 1): absolute durations, so DST never stretches them. */
  | { kind: 'interval'; everyMs: number; anchor: string }
  /** One slot; `in 45m` is resolved to this instant when the job is written. */
  | { kind: 'once'; at: string };

export type ScheduleKind = Schedule['kind'];
