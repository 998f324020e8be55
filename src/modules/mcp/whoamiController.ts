// GET /v1/whoami: the token a request presented, as the service sees it (name, scope, tenant), for clients that adapt to it.
import { Controller, Get, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { requestPrincipal } from '../../http/auth.js';
import type { Request } from '../../http/httpTypes.js';
import { ValidQuery } from '../../http/zodValidation.js';
import type { WhoamiResponse } from '../../client/index.js';

const noQuery = z.strictObject({});

@ApiTags('tokens')
@Controller('v1')
export class WhoamiController {
  @Get('whoami')
  @ApiOperation({
    summary:
      "The request's token: its name (the actor its writes record), its scope (read, write or admin) and its tenant (null: the default tenant). Without API_TOKEN configured: the operator, api with admin",
  })
  whoami(@ValidQuery(noQuery) _query: z.infer<typeof noQuery>, @Req() request: Request): WhoamiResponse {
    const principal = requestPrincipal(request);
    return { name: principal.name, scope: principal.scope, tenant: principal.tenant ?? null };
  }
}
