// A bounded-cost estimate of a state's JSON size, for the cache's memory budget.

const SAMPLE = 16;

/**
 * Walks the value, but measures at most SAMPLE evenly spaced elements of any long array and scales
 * up: a 10,000-turn transcript costs a few hundred steps, not a 6 MB JSON.stringify per write.
 */
export function approximateJsonSize(value: unknown): number {
  if (value === null || value === undefined) return 4;
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
    case 'bigint':
      return String(value).length;
    case 'boolean':
      return value ? 4 : 5;
    case 'object': {
      if (Array.isArray(value)) {
        if (value.length <= SAMPLE) return value.reduce((sum: number, item) => sum + approximateJsonSize(item) + 1, 2);
        const step = value.length / SAMPLE;
        let sampled = 0;
        for (let index = 0; index < SAMPLE; index++) sampled += approximateJsonSize(value[Math.floor(index * step)]) + 1;
        return Math.round((sampled * value.length) / SAMPLE) + 2;
      }
      let size = 2;
      for (const [key, item] of Object.entries(value)) size += key.length + 4 + approximateJsonSize(item);
      return size - 1;
    }
    default:
      return 0;
  }
}
