// Scheduled jobs: schedule, change, fire at most once per slot, deliver fires by webhook or event stream.
import { Module } from '@nestjs/common';
import { FireJobHandler } from './commands/fireJob.js';
import { ImportJobsHandler, ScheduleJobHandler } from './commands/scheduleJob.js';
import { JobFiresStreamController } from './delivery/jobFiresStreamController.js';
import { JobWebhookDelivery } from './delivery/jobWebhookDelivery.js';
import { JobsController } from './jobsController.js';
import { JobTicker } from './jobTicker.js';
import { SchedulerCallbackGuard } from './scheduler/schedulerCallbackGuard.js';
import { SchedulerRegistrations } from './scheduler/schedulerRegistrations.js';

@Module({
  controllers: [JobFiresStreamController, JobsController],
  providers: [ScheduleJobHandler, ImportJobsHandler, FireJobHandler, JobTicker, JobWebhookDelivery, SchedulerRegistrations, SchedulerCallbackGuard],
})
export class JobsModule {}
