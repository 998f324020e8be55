// The platform registry of a tenant's live gateways: the gateway streams the stream index knows, each read from its stream.
import type { DataSource } from 'typeorm';
import { StreamIndexEntity } from '../../../projections/streamIndex/streamIndexRow.js';
import { scopedStreamName, streamScope } from '../../../events/streamScope.js';
import type { StreamStateStore } from '../../../events/streamStateStore.js';
import type { PlatformRegistryView } from '../../sessions/domain/sessionContextPrompt.js';
import { gatewayDecider, isLiveGateway } from '../gatewayDecider.js';
import { type LiveGatewayPlatforms, platformRegistryView } from '../platformRegistry.js';

/** The most recently active gateways of a tenant the prompt looks at; more than this many is not a gateway fleet we serve. */
export const MAX_GATEWAYS_PER_TENANT = 100;

/**
 * Which gateways exist comes from the stream index (a read model: `?minPosition` waits for it); what each one
 * registered and whether it is live comes from its own stream, so a stop is seen at once.
 */
export async function livePlatformRegistry(readModels: DataSource, streams: StreamStateStore, tenant: string | undefined): Promise<PlatformRegistryView> {
  const rows = await readModels.getRepository(StreamIndexEntity).find({
    where: { category: scopedStreamName('gateway', tenant) },
    order: { lastPosition: 'DESC' },
    take: MAX_GATEWAYS_PER_TENANT,
  });
  const gateways: LiveGatewayPlatforms[] = [];
  for (const row of rows) {
    const { state } = await streams.load(row.streamName, gatewayDecider);
    if (state.platforms.length > 0 && isLiveGateway(state)) {
      gateways.push({ gatewayId: streamScope(row.streamName).name.slice('gateway-'.length), platforms: state.platforms });
    }
  }
  return platformRegistryView(gateways);
}
