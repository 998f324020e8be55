// docs/api.md § Error codes lists every code the source can answer, once, with the status the source gives it.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ErrorCodeScan, scanErrorCodes } from '../support/errorCodesInSource.js';

const root = process.cwd();
const ROW = /^\| `([A-Z][A-Z0-9_]*)` \| (\d{3}) \|/;

interface DocumentedCode {
  code: string;
  status: number;
  line: number;
}

function documentedCodes(): DocumentedCode[] {
  const lines = readFileSync(join(root, 'docs/api.md'), 'utf8').split('\n');
  const start = lines.findIndex((line) => line === '## Error codes');
  if (start < 0) throw new Error('docs/api.md has no "## Error codes" section');
  const rows: DocumentedCode[] = [];
  for (let index = start + 1; index < lines.length && !lines[index]!.startsWith('## '); index++) {
    const match = ROW.exec(lines[index]!);
    if (match) rows.push({ code: match[1]!, status: Number(match[2]), line: index + 1 });
  }
  return rows;
}

describe('the error-code list in docs/api.md', () => {
  let scan: ErrorCodeScan;
  let statusesInSource: Map<string, Map<number, string[]>>;

  beforeAll(() => {
    scan = scanErrorCodes(root);
    statusesInSource = new Map();
    for (const use of scan.uses) {
      const statuses = statusesInSource.get(use.code) ?? new Map<number, string[]>();
      statuses.set(use.status, [...(statuses.get(use.status) ?? []), use.where]);
      statusesInSource.set(use.code, statuses);
    }
  }, 180_000);

  it('reads every code in the source as a literal', () => {
    // A code typed as plain `string` would escape the list: give the variable or parameter a union of literals.
    expect(scan.unreadable).toEqual([]);
    expect(statusesInSource.size).toBeGreaterThan(80);
    expect([...(statusesInSource.get('SESSION_ENDED')?.keys() ?? [])]).toEqual([409]);
    expect([...(statusesInSource.get('VALIDATION_FAILED')?.keys() ?? [])]).toEqual([400]);
  });

  it('gives each code one status across the source', () => {
    const problems = [...statusesInSource]
      .filter(([, statuses]) => statuses.size > 1)
      .map(([code, statuses]) => `${code} is answered with ${[...statuses].map(([status, where]) => `${status} (${where.join(', ')})`).join(' and ')}`);
    expect(problems).toEqual([]);
  });

  it('documents each code the source answers, with its status', () => {
    const documented = new Map(documentedCodes().map((row) => [row.code, row]));
    const problems: string[] = [];
    for (const [code, statuses] of statusesInSource) {
      const [status, where] = [...statuses][0]!;
      const row = documented.get(code);
      if (!row)
        problems.push(`${code} (${status}, answered at ${where[0]}) is missing: add "| \`${code}\` | ${status} | <when> |" to docs/api.md § Error codes`);
      else if (row.status !== status)
        problems.push(`${code} is documented as ${row.status} (docs/api.md:${row.line}) but answered as ${status} at ${where[0]}`);
    }
    expect(problems).toEqual([]);
  });

  it('lists each documented code once, and only codes the source answers', () => {
    const problems: string[] = [];
    const seen = new Map<string, number>();
    for (const row of documentedCodes()) {
      const first = seen.get(row.code);
      if (first !== undefined) problems.push(`${row.code} is listed twice: docs/api.md:${first} and :${row.line}`);
      seen.set(row.code, row.line);
      if (!statusesInSource.has(row.code)) {
        problems.push(`${row.code} (docs/api.md:${row.line}) is answered nowhere in src: remove the row, or throw it as a LedgerError with a literal code`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the source scan behind the list', () => {
  let fixture: string;

  beforeAll(() => {
    fixture = mkdtempSync(join(tmpdir(), 'error-codes-'));
    mkdirSync(join(fixture, 'src/errors'), { recursive: true });
    copyFileSync(join(root, 'src/errors/ledgerError.ts'), join(fixture, 'src/errors/ledgerError.ts'));
    writeFileSync(
      join(fixture, 'src/uses.ts'),
      [
        "import { ConflictError, LedgerError, ValidationError } from './errors/ledgerError.js';",
        "class ParkedError extends LedgerError { constructor(stream: string) { super('STREAM_PARKED', stream, 503); } }",
        "export const a = new ConflictError('SOME_CONFLICT', 'm');",
        "export const b = new ValidationError('m');",
        "export function c(kind: 'FIRST_KIND' | 'SECOND_KIND') { return new LedgerError(kind, 'm', 422); }",
        "export function d(code: string) { return new ConflictError(code, 'm'); }",
        "export const e = new ParkedError('s');",
        "export const f = { status: 418, body: { code: 'TEAPOT', message: 'm' } };",
        "export const g: Record<number, string> = { 404: 'NOWHERE', 405: 'WRONG_METHOD' };",
      ].join('\n'),
    );
  });
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  it('finds codes through subclasses, defaults, unions, error bodies and status tables, and flags a code typed as string', () => {
    const scan = scanErrorCodes(fixture);
    expect(scan.uses.map((use) => `${use.code} ${use.status}`).sort()).toEqual([
      'FIRST_KIND 422',
      'NOWHERE 404',
      'SECOND_KIND 422',
      'SOME_CONFLICT 409',
      'STREAM_PARKED 503',
      'TEAPOT 418',
      'VALIDATION_FAILED 400',
      'WRONG_METHOD 405',
    ]);
    expect(scan.unreadable).toEqual([expect.stringMatching(/^src\/uses\.ts:6: new ConflictError\(…\) gets a code typed wider/)]);
  }, 120_000);
});
