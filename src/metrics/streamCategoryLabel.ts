// The `category` label of a stream: its category word, whatever tenant it belongs to (tenants would make the label unbounded).
import { streamScope } from '../events/streamScope.js';
import { streamCategory } from '../projections/streamIndex/streamIndexProjection.js';

export function streamCategoryLabel(streamName: string): string {
  return streamCategory(streamScope(streamName).name);
}
