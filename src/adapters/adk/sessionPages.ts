// listSessions' ordering and pagination, with the meaning ADK's own services give limit, offset, page and order.
import type { ListSessionsRequest, ListSessionsResponse, Session } from '@google/adk';

export function pageOf(all: Session[], { limit, offset, page, order }: Pick<ListSessionsRequest, 'limit' | 'offset' | 'page' | 'order'>): ListSessionsResponse {
  if (order === 'asc') all.sort((a, b) => a.lastUpdateTime - b.lastUpdateTime || a.id.localeCompare(b.id));
  else if (order === 'desc') all.sort((a, b) => b.lastUpdateTime - a.lastUpdateTime || a.id.localeCompare(b.id));
  const totalItems = all.length;
  if (limit === undefined) {
    const sessions = offset ? all.slice(offset) : all;
    return { sessions, page: 1, limit: totalItems, totalItems, totalPages: totalItems === 0 ? 0 : 1 };
  }
  const first = page !== undefined ? (page - 1) * limit : (offset ?? 0);
  const current = page !== undefined ? page : limit === 0 ? 1 : Math.floor(first / limit) + 1;
  return { sessions: all.slice(first, first + limit), page: current, limit, totalItems, totalPages: limit === 0 ? 0 : Math.ceil(totalItems / limit) };
}
