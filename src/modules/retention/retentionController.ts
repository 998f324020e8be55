// Admin: apply the retention policy now, or report what it would expire (docs/retention.md).
import { Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CONFIG, type LedgerConfig } from '../../config/config.js';
import { type RetentionPolicy, retentionPolicyIsEmpty } from '../../config/retentionSettings.js';
import { ValidationError } from '../../errors/ledgerError.js';
import type { Request } from '../../http/httpTypes.js';
import { AdminOnly } from '../../http/auth.js';
import { DocumentedBody, ValidBody } from '../../http/zodValidation.js';
import { requestMetadata } from '../commandContext.js';
import { ApplyRetentionCommand, type RetentionReport } from './commands/applyRetention.js';
import { type RetentionRequest, retentionRequestSchema } from './retentionRequests.js';

@ApiTags('admin')
@AdminOnly()
@Controller('v1/admin/retention')
export class RetentionController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(CONFIG) private readonly config: LedgerConfig,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Apply the retention policy now (the configured one, or parts given here): transcript content older than its platform’s days is erased in place, checkpoints beyond the newest keepCheckpoints expire; dryRun reports per session what would go and writes nothing. 400 RETENTION_POLICY_EMPTY when the policy expires nothing, 501 ERASURE_NOT_SUPPORTED on EventStoreDB',
  })
  @DocumentedBody(retentionRequestSchema)
  apply(@ValidBody(retentionRequestSchema) body: RetentionRequest, @Req() request: Request): Promise<RetentionReport> {
    const configured = this.config.retention;
    const policy: RetentionPolicy = {
      contentDays: body.contentDays !== undefined ? body.contentDays : configured.contentDays,
      // A Map: a platform named `constructor` is a platform like any other.
      contentDaysByPlatform: body.contentDaysByPlatform ?? configured.contentDaysByPlatform,
      keepCheckpoints: body.keepCheckpoints !== undefined ? body.keepCheckpoints : configured.keepCheckpoints,
    };
    if (retentionPolicyIsEmpty(policy)) {
      throw new ValidationError(
        'no retention policy: set RETENTION_CONTENT_DAYS, RETENTION_CONTENT_DAYS_BY_PLATFORM or RETENTION_KEEP_CHECKPOINTS, or give contentDays, contentDaysByPlatform or keepCheckpoints',
        undefined,
        'RETENTION_POLICY_EMPTY',
      );
    }
    return this.commands.execute(new ApplyRetentionCommand(policy, body.dryRun, requestMetadata(request)));
  }
}
