// Every event type's schema history in one list: what readers upcast through and which version writers stamp.
import type { EventUpcaster } from './eventUpcaster.js';
import { FIRST_SCHEMA_VERSION } from './eventUpcaster.js';
import { gatewayPlatformsRegisteredV2 } from './gatewayPlatformsRegisteredV2.js';
import { rolledBackV2 } from './rolledBackV2.js';
import { transcriptRewoundV2 } from './transcriptRewoundV2.js';

/** Add a step here when an event's shape changes; the decider and folds then see only the newest shape. */
export const eventUpcasters: readonly EventUpcaster[] = [transcriptRewoundV2, rolledBackV2, gatewayPlatformsRegisteredV2];

export class EventSchemaHistory {
  private readonly steps = new Map<string, Map<number, EventUpcaster>>();
  private readonly current = new Map<string, number>();

  constructor(upcasters: readonly EventUpcaster[]) {
    for (const upcaster of upcasters) {
      const steps = this.steps.get(upcaster.type) ?? new Map<number, EventUpcaster>();
      if (steps.has(upcaster.fromVersion)) throw new Error(`two upcasters for ${upcaster.type} v${upcaster.fromVersion}`);
      steps.set(upcaster.fromVersion, upcaster);
      this.steps.set(upcaster.type, steps);
    }
    for (const [type, steps] of this.steps) {
      // A gap would leave old events in a shape no reader knows: refuse to start instead.
      let version = FIRST_SCHEMA_VERSION;
      while (steps.has(version)) version += 1;
      if (version - FIRST_SCHEMA_VERSION !== steps.size) throw new Error(`the upcasters of ${type} do not form one chain from v${FIRST_SCHEMA_VERSION}`);
      this.current.set(type, version);
    }
  }

  /** The version writers stamp on new events of this type. */
  currentVersion(type: string): number {
    return this.current.get(type) ?? FIRST_SCHEMA_VERSION;
  }

  /** The steps from `storedVersion` to the current version, in order (none for an up-to-date event). */
  stepsFrom(type: string, storedVersion: number): EventUpcaster[] {
    const steps = this.steps.get(type);
    if (!steps) return [];
    const path: EventUpcaster[] = [];
    for (let version = storedVersion; steps.has(version); version += 1) path.push(steps.get(version)!);
    return path;
  }
}

export const eventSchemaHistory = new EventSchemaHistory(eventUpcasters);
