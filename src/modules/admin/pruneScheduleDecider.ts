// The prune schedule decider: one claim per interval slot, so exactly one instance runs each scheduled sweep.
import { type Decider, unknownEventType } from '../../events/decider.js';
import type { PruneScheduleEvent } from '../../events/prune/pruneScheduleEvents.js';

export interface PruneScheduleState {
  lastSlot: string | null;
}

export type PruneScheduleCommand = { type: 'ClaimSweep'; slot: string; maxAgeDays: number; olderThan: string; now: string };

/** The start of the interval window `now` falls in, counted from the epoch: every instance names the same slot. */
export function pruneSlot(now: Date, intervalMinutes: number): string {
  const interval = intervalMinutes * 60_000;
  return new Date(Math.floor(now.getTime() / interval) * interval).toISOString();
}

export const pruneScheduleDecider: Decider<PruneScheduleState, PruneScheduleCommand, PruneScheduleEvent> = {
  initialState: () => ({ lastSlot: null }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'PruneSweepClaimed':
        return { lastSlot: event.data.slot };
      default:
        return unknownEventType(event.type, state);
    }
  },
  decide: (command, state) => {
    if (state.lastSlot !== null && Date.parse(state.lastSlot) >= Date.parse(command.slot)) return [];
    const { slot, maxAgeDays, olderThan, now } = command;
    return [{ type: 'PruneSweepClaimed', data: { slot, maxAgeDays, olderThan, at: now } }];
  },
};
