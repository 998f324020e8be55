// Every projection the service runs, in one list so the runner, rebuild and tests agree.
import { agentSessionsProjection } from './agentSessions/agentSessionsProjection.js';
import { jobsProjection } from './jobs/jobsProjection.js';
import type { Projection } from './projection.js';
import { runtimeSessionsProjection } from './runtimeSessions/runtimeSessionsProjection.js';
import { sessionsIndexProjection } from './sessionsIndex/sessionsIndexProjection.js';
import { sessionTreeProjection } from './sessionTree/sessionTreeProjection.js';
import { streamIndexProjection } from './streamIndex/streamIndexProjection.js';
import { transcriptSearchProjection } from './transcriptSearch/transcriptSearchProjection.js';

export const allProjections: readonly Projection[] = [
  streamIndexProjection,
  sessionsIndexProjection,
  jobsProjection,
  sessionTreeProjection,
  runtimeSessionsProjection,
  transcriptSearchProjection,
  agentSessionsProjection,
];
