// The JSON shape of every stored event type, at its current schema version, against the shapes recorded in
// eventSchemas.json: a shape that changes without a new version fails here instead of silently in the log.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { eventSchemaHistory } from '../../src/events/upcasting/eventSchemaVersions.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const recordedFile = join(dirname(fileURLToPath(import.meta.url)), 'eventSchemas.json');
const UPDATE = process.env.UPDATE_EVENT_SCHEMAS === '1';

/** Every file that declares a stream's event union: `src/events/<stream>/*Events.ts`. */
function eventFiles(): string[] {
  const eventsRoot = join(root, 'src/events');
  const streams = readdirSync(eventsRoot, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  return streams.flatMap((folder) =>
    readdirSync(join(eventsRoot, folder.name))
      .filter((name) => name.endsWith('Events.ts'))
      .map((name) => join(eventsRoot, folder.name, name)),
  );
}

// Named JSON types are recursive and mean "any JSON": they are written by name.
const OPAQUE = new Set(['JsonValue', 'JsonObject']);

function shapesOfStoredEvents(): Map<string, string> {
  const files = eventFiles();
  const program = ts.createProgram(files, {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
  });
  const checker = program.getTypeChecker();

  const describe = (type: ts.Type, seen: readonly ts.Type[]): string => {
    if (type.aliasSymbol && OPAQUE.has(type.aliasSymbol.name)) return type.aliasSymbol.name;
    if (seen.includes(type)) return '<recursive>';
    const inner = [...seen, type];
    if (type.isUnion())
      return type.types
        .map((member) => describe(member, inner))
        .sort()
        .join(' | ');
    if (type.isIntersection())
      return type.types
        .map((member) => describe(member, inner))
        .sort()
        .join(' & ');
    if (checker.isArrayType(type) || checker.isTupleType(type)) {
      const items = checker.getTypeArguments(type as ts.TypeReference);
      return checker.isTupleType(type) ? `[${items.map((item) => describe(item, inner)).join(', ')}]` : `${describe(items[0]!, inner)}[]`;
    }
    if (type.flags & ts.TypeFlags.Object) {
      const properties = checker.getPropertiesOfType(type).filter((property) => !(property.flags & ts.SymbolFlags.Method));
      const fields = properties
        .map((property) => {
          const optional = property.flags & ts.SymbolFlags.Optional ? '?' : '';
          const propertyType = checker.getNonNullableType(checker.getTypeOfSymbol(property));
          const described = optional ? describe(propertyType, inner) : describe(checker.getTypeOfSymbol(property), inner);
          return `${property.name}${optional}: ${described}`;
        })
        .sort();
      const index = checker.getIndexInfosOfType(type).map((info) => `[key: ${checker.typeToString(info.keyType)}]: ${describe(info.type, inner)}`);
      return `{ ${[...fields, ...index].join('; ')} }`;
    }
    return checker.typeToString(type);
  };

  const shapes = new Map<string, string>();
  for (const file of files) {
    const source = program.getSourceFile(file)!;
    const module = checker.getSymbolAtLocation(source)!;
    for (const exported of checker.getExportsOfModule(module)) {
      if (!(exported.flags & ts.SymbolFlags.TypeAlias)) continue;
      const type = checker.getDeclaredTypeOfSymbol(exported);
      const members = type.isUnion() ? type.types : [type];
      for (const member of members) {
        const typeField = member.getProperty('type');
        const dataField = member.getProperty('data');
        if (!typeField || !dataField) continue;
        const name = checker.getTypeOfSymbol(typeField);
        if (!name.isStringLiteral()) continue;
        shapes.set(`${name.value}@v${eventSchemaHistory.currentVersion(name.value)}`, describe(checker.getTypeOfSymbol(dataField), []));
      }
    }
  }
  return shapes;
}

describe('stored event shapes', () => {
  const current = shapesOfStoredEvents();
  let recorded: Record<string, string> = existsSync(recordedFile) ? JSON.parse(readFileSync(recordedFile, 'utf8')) : {};

  if (UPDATE) {
    // Earlier versions stay recorded: they are what the log holds from before.
    const merged = { ...recorded, ...Object.fromEntries(current) };
    recorded = merged;
    writeFileSync(recordedFile, `${JSON.stringify(Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b))), null, 2)}\n`);
  }

  it('finds every stream event union (the scan is not empty)', () => {
    expect([...current.keys()]).toEqual(expect.arrayContaining(['SessionCreated@v1', 'TurnRecorded@v1', 'JobFired@v1', 'ConversationOpened@v1']));
    expect(current.size).toBeGreaterThan(40);
  });

  it('match the recorded shape of their current schema version', () => {
    const unrecorded = [...current.keys()].filter((key) => recorded[key] === undefined);
    const changed = [...current].filter(([key, shape]) => recorded[key] !== undefined && recorded[key] !== shape).map(([key]) => key);
    const advice =
      'A change old readers cannot take needs a new schema version and an upcaster (src/events/upcasting/eventSchemaVersions.ts). ' +
      'A new event type, or a new optional field that old events lack and readers default, is recorded with: ' +
      'UPDATE_EVENT_SCHEMAS=1 npx vitest run test/unit/eventSchemas.unit.spec.ts';
    expect(changed, `stored shapes changed: ${changed.join(', ')}. ${advice}`).toEqual([]);
    expect(unrecorded, `event types without a recorded shape: ${unrecorded.join(', ')}. ${advice}`).toEqual([]);
  });
});
