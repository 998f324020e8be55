// The first event of one type among those an append decided, typed as that member of its stream's union.
export function eventOfType<Event extends { type: string }, Type extends Event['type']>(
  events: readonly Event[],
  type: Type,
): Extract<Event, { type: Type }> | undefined {
  return events.find((event): event is Extract<Event, { type: Type }> => event.type === type);
}
