// Writes an import plan: each stream whole in one append (or not at all), streams already there left alone; then the jobs.
import { z } from 'zod';
import { systemClock } from '../../clock.js';
import type { LedgerConfig } from '../../config/config.js';
import { LedgerError } from '../../errors/ledgerError.js';
import { BoundedStateCache } from '../../events/boundedStateCache.js';
import type { EventMetadata, EventStore } from '../../events/eventStore.js';
import { StreamNotFoundError, WrongExpectedRevisionError } from '../../events/eventStoreErrors.js';
import { StreamStateStore } from '../../events/streamStateStore.js';
import { eventSchemaHistory } from '../../events/upcasting/eventSchemaVersions.js';
import { ImportJobsCommand, ImportJobsHandler } from '../jobs/commands/scheduleJob.js';
import { definitionsFromJobsJson } from '../jobs/jobsJsonImport.js';
import { CommandContext } from '../commandContext.js';
import type { HermesExport } from './hermesHome.js';
import { importEventId, importedJobId } from './importEventId.js';
import type { ImportPlan, PlannedStream } from './planHermesImport.js';

export const IMPORT_ACTOR = 'hermes-import';

export interface HermesImportReport {
  home: string;
  files: HermesExport['files'];
  dryRun: boolean;
  conversations: { imported: string[]; alreadyThere: string[]; rekeyed: Array<{ hermesKey: string; sessionKey: string }> };
  sessions: { imported: number; alreadyThere: number };
  turns: number;
  messages: number;
  jobs: { imported: string[]; alreadyThere: string[]; refused: Array<{ job: string; code: string; message: string }> };
  leftOut: ImportPlan['leftOut'];
  /** The highest position written (0 when nothing was): pass it as ?minPosition= to read the import back. */
  position: number;
  /** True when this run wrote nothing: everything was already imported. */
  nothingNew: boolean;
}

async function streamExists(store: EventStore, streamName: string): Promise<boolean> {
  try {
    await store.readStream(streamName, { fromRevision: 0, maxCount: 1 });
    return true;
  } catch (error) {
    if (error instanceof StreamNotFoundError) return false;
    throw error;
  }
}

/** Appends the stream whole, expecting it absent: 'already' when it exists (an earlier run, or one racing this). */
async function writeStream(store: EventStore, stream: PlannedStream, metadata: EventMetadata): Promise<number | 'already'> {
  if (await streamExists(store, stream.streamName)) return 'already';
  const events = stream.events.map((event, index) => ({
    id: importEventId(stream.streamName, index),
    type: event.type,
    data: event.data,
    metadata: { schemaVersion: eventSchemaHistory.currentVersion(event.type), ...metadata },
  }));
  try {
    return (await store.append(stream.streamName, events, 'no_stream')).position;
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return 'already';
    throw error;
  }
}

export async function applyHermesImport(
  store: EventStore,
  config: LedgerConfig,
  hermes: HermesExport,
  plan: ImportPlan,
  options: { dryRun: boolean; tenant?: string; correlationId: string },
): Promise<HermesImportReport> {
  const metadata: EventMetadata = {
    actor: IMPORT_ACTOR,
    correlationId: options.correlationId,
    importedFrom: 'hermes',
    ...(options.tenant ? { tenant: options.tenant } : {}),
  };
  const report: HermesImportReport = {
    home: hermes.home,
    files: hermes.files,
    dryRun: options.dryRun,
    conversations: {
      imported: [],
      alreadyThere: [],
      rekeyed: plan.conversations.filter((c) => c.rekeyed).map(({ hermesKey, sessionKey }) => ({ hermesKey, sessionKey })),
    },
    sessions: { imported: 0, alreadyThere: 0 },
    turns: 0,
    messages: 0,
    jobs: { imported: [], alreadyThere: [], refused: [] },
    leftOut: [...plan.leftOut],
    position: 0,
    nothingNew: true,
  };

  const importedSessions = new Set<string>();
  for (const stream of plan.streams) {
    const written = options.dryRun ? ((await streamExists(store, stream.streamName)) ? 'already' : 0) : await writeStream(store, stream, metadata);
    const isNew = written !== 'already';
    if (isNew && stream.kind === 'session') importedSessions.add(stream.id);
    if (stream.kind === 'conversation') (isNew ? report.conversations.imported : report.conversations.alreadyThere).push(stream.id);
    else if (isNew) report.sessions.imported += 1;
    else report.sessions.alreadyThere += 1;
    if (!isNew) continue;
    if (stream.kind === 'session') {
      const turns = stream.events.filter((event) => event.type === 'TurnRecorded');
      report.turns += turns.length;
      report.messages += turns.reduce((sum, event) => sum + (event.data.messages as unknown[]).length, 0);
    }
    report.position = Math.max(report.position, written);
  }

  // A key the ledger already has keeps its own history: the Hermes sessions imported for it stay unbound, and the
  // report says so, with the call that binds Hermes' current session (a switch, written like any other).
  for (const key of report.conversations.alreadyThere) {
    const planned = plan.conversations.find((conversation) => conversation.sessionKey === key);
    const unbound = planned?.sessionIds.filter((id) => importedSessions.has(id)) ?? [];
    if (!planned || unbound.length === 0) continue;
    report.leftOut.push({
      item: `conversation ${key}`,
      reason:
        `already in the ledger: it keeps its own sessions, display name and counters, and Hermes' session(s) ${unbound.join(', ')} ` +
        `were imported without being bound to it; to carry on in Hermes' current session, POST /v1/conversations/${encodeURIComponent(key)}/switch ` +
        `{"sessionId": "${planned.sessionId}"}`,
    });
  }

  // Jobs go through the jobs module's own import (schedules parsed, JOB_EXISTS for ids taken), one at a time so
  // that one bad entry is reported instead of refusing the file.
  const commandContext = new CommandContext(new StreamStateStore(store, new BoundedStateCache({ maxEntries: 0 }), systemClock), systemClock, config);
  const importJobs = new ImportJobsHandler(commandContext);
  for (const raw of plan.jobs) {
    const job = raw.id === undefined || raw.id === null || raw.id === '' ? { ...raw, id: importedJobId(raw) } : raw;
    const label = String(job.id);
    try {
      const definitions = definitionsFromJobsJson({ jobs: [job] });
      if (options.dryRun) {
        const decided = await importJobs.decideWithoutWriting(new ImportJobsCommand(definitions, metadata));
        report.jobs.imported.push(...decided.created);
        report.jobs.alreadyThere.push(...decided.existing);
        continue;
      }
      const result = await importJobs.execute(new ImportJobsCommand(definitions, metadata));
      report.jobs.imported.push(...result.created.map((state) => state.jobId ?? label));
      report.jobs.alreadyThere.push(...result.existing);
      report.position = Math.max(report.position, result.position);
    } catch (error) {
      if (error instanceof LedgerError) report.jobs.refused.push({ job: label, code: error.code, message: error.message });
      else if (error instanceof z.ZodError)
        report.jobs.refused.push({
          job: label,
          code: 'VALIDATION_FAILED',
          message: error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
        });
      else throw error;
    }
  }
  report.nothingNew = report.conversations.imported.length === 0 && report.sessions.imported === 0 && report.jobs.imported.length === 0;
  return report;
}
