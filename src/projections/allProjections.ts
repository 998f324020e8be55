// Every projection the service runs, in one list so the runner, rebuild and tests agree.
import type { Projection } from './projection.js';
import { sessionsIndexProjection } from './sessionsIndex/sessionsIndexProjection.js';
import { streamIndexProjection } from './streamIndex/streamIndexProjection.js';

export const allProjections: readonly Projection[] = [streamIndexProjection, sessionsIndexProjection];
