// Where a fire's output goes, resolved when it fires as Hermes' cron delivery resolves deliver="origin".
import type { DeliveryTarget, JobTask, ResolvedDelivery } from '../../../events/job/jobEvents.js';

export interface HomeChannel {
  platform: string;
  chatId: string;
}

/**
 * The job's own deliverTo; else its origin chat; else, as Hermes' cron falls back when a job has no origin, a home
 * channel the live gateways registered: the origin platform's, or the first by platform. Null: nowhere known.
 */
export function resolveFireDelivery(task: JobTask, homeChannels: readonly HomeChannel[]): ResolvedDelivery | null {
  if (task.deliverTo) return { ...task.deliverTo, from: 'deliverTo' };
  const origin = task.origin;
  if (origin?.platform && origin.chatId) return { platform: origin.platform, chatId: origin.chatId, threadId: origin.threadId, from: 'origin' };
  const home = homeChannels.find((channel) => channel.platform === origin?.platform) ?? homeChannels[0];
  return home ? { platform: home.platform, chatId: home.chatId, threadId: null, from: 'home_channel' } : null;
}

/** Whether resolving needs the registry's home channels (which cost a read). */
export function needsHomeChannels(task: JobTask): boolean {
  return !task.deliverTo && !(task.origin?.platform && task.origin.chatId);
}

export type { DeliveryTarget };
