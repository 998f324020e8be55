// The platform registry of a tenant's live gateways: the gateway streams the stream index knows, each read from its stream.
import { Not, type DataSource } from 'typeorm';
import { StreamIndexEntity } from '../../../projections/streamIndex/streamIndexRow.js';
import { scopedStreamName, streamScope } from '../../../events/streamScope.js';
import type { StreamStateStore } from '../../../events/streamStateStore.js';
import type { PlatformRegistryView } from '../../sessions/domain/sessionContextPrompt.js';
import { gatewayDecider, isLiveGateway } from '../domain/gatewayDecider.js';
import { type LiveGatewayPlatforms, platformRegistryView } from '../platformRegistry.js';

/** The most recently active gateways of a tenant the prompt looks at, stopped ones left out; more is not a fleet we serve. */
export const MAX_GATEWAYS_PER_TENANT = 1000;

/**
 * Which gateways exist comes from the stream index (a read model: `?minPosition` waits for it), those whose last
 * event is a stop left out there; what each one registered and whether it is live comes from its own stream, read
 * together (one catch-up read for the cached ones), so a stop is seen at once.
 */
export async function livePlatformRegistry(readModels: DataSource, streams: StreamStateStore, tenant: string | undefined): Promise<PlatformRegistryView> {
  const rows = await readModels.getRepository(StreamIndexEntity).find({
    select: { streamName: true },
    where: { category: scopedStreamName('gateway', tenant), lastEventType: Not('GatewayStopped') },
    order: { lastPosition: 'DESC' },
    take: MAX_GATEWAYS_PER_TENANT,
  });
  const loaded = await streams.loadMany(rows.map((row) => ({ streamName: row.streamName, decider: gatewayDecider })));
  const gateways: LiveGatewayPlatforms[] = [];
  loaded.forEach(({ state }, index) => {
    const { streamName } = rows[index]!;
    if (state.platforms.length > 0 && isLiveGateway(state))
      gateways.push({ gatewayId: streamScope(streamName).name.slice('gateway-'.length), platforms: state.platforms });
  });
  return platformRegistryView(gateways);
}
