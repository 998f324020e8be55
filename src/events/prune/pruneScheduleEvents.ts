// Events of the service's `prune-schedule` stream: which scheduled prune slots an instance claimed and ran.
export type PruneScheduleEvent = {
  type: 'PruneSweepClaimed';
  /** `slot`: the start of the PRUNE_INTERVAL_MINUTES window this sweep belongs to; one claim per slot across instances. */
  data: { slot: string; maxAgeDays: number; olderThan: string; at: string };
};

export type PruneScheduleEventType = PruneScheduleEvent['type'];

/** The service's own stream: it belongs to no tenant (a sweep covers every tenant, like POST /v1/admin/prune). */
export const PRUNE_SCHEDULE_STREAM = 'prune-schedule';
