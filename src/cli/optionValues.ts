// Command-line option values checked once, with messages that name the option.
import { ValidationError } from '../errors/ledgerError.js';

export function wholeNumber(text: string, flag: string): number {
  if (!/^\d{1,15}$/.test(text)) throw new ValidationError(`${flag} must be a whole number`);
  return Number(text);
}

export function isoTime(text: string, flag: string): Date {
  const at = new Date(text);
  if (!/^\d{4}-\d\d-\d\dT/.test(text) || Number.isNaN(at.getTime())) throw new ValidationError(`${flag} must be an ISO 8601 time, e.g. 2026-06-16T09:00:00Z`);
  return at;
}

/** `--type A --type B,C` → [A, B, C]. */
export function commaList(values: string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value.length > 0);
}
