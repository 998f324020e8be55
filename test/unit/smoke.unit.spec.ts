import { describe, expect, it } from 'vitest';
import { WrongExpectedRevisionError } from '../../src/events/eventStoreErrors.js';

describe('WrongExpectedRevisionError', () => {
  it('carries expected and actual revision', () => {
    const error = new WrongExpectedRevisionError('s-1', 3, 5);
    expect(error.status).toBe(409);
    expect(error.details).toEqual({ streamName: 's-1', expectedRevision: 3, actualRevision: 5 });
  });
});
