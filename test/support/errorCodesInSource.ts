// Every error code the service's source can answer, with its HTTP status, read from the TypeScript itself:
// each `new` of the LedgerError family (through any subclass), each object literal that pairs a `code` with a
// `status`, and each status → code table. Read with the type checker, so a code held in a variable typed as a
// union of literals counts; a code typed only as `string` is reported as unreadable instead of being missed.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface ErrorCodeUse {
  code: string;
  status: number;
  where: string;
}

export interface ErrorCodeScan {
  uses: ErrorCodeUse[];
  /** Places where a code or status is not a literal the checker can read: each must be given a literal type. */
  unreadable: string[];
}

const CODE_SHAPE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;

type Slot = { kind: 'fixed'; values: Array<string | number> } | { kind: 'param'; index: number; defaults: Array<string | number> };
interface ErrorClassShape {
  code: Slot;
  status: Slot;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

export function scanErrorCodes(root: string): ErrorCodeScan {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    experimentalDecorators: true,
    noEmit: true,
    // Codes and statuses are literals of the project's own files: leaving out the standard library and every
    // package's types makes the scan several times faster and changes no literal type.
    noLib: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readSource = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, ...rest) => (fileName.includes('/node_modules/') ? undefined : readSource(fileName, ...rest));
  const program = ts.createProgram(sourceFiles(join(root, 'src')), options, host);
  const checker = program.getTypeChecker();
  const uses: ErrorCodeUse[] = [];
  const unreadable: string[] = [];
  const shapes = new Map<ts.ClassDeclaration, ErrorClassShape | null>();

  const where = (node: ts.Node): string => {
    const file = node.getSourceFile();
    const { line } = file.getLineAndCharacterOfPosition(node.getStart());
    return `${relative(root, file.fileName)}:${line + 1}`;
  };

  /** The literal values an expression can take, or null when its type is wider than a union of literals. */
  const literalsOf = (expression: ts.Expression): Array<string | number> | null => {
    const type = checker.getTypeAtLocation(expression);
    const parts = type.isUnion() ? type.types : [type];
    const values: Array<string | number> = [];
    for (const part of parts) {
      if (part.isStringLiteral() || part.isNumberLiteral()) values.push(part.value);
      else return null;
    }
    return values;
  };

  const classOf = (expression: ts.Expression): ts.ClassDeclaration | undefined => {
    let symbol = checker.getSymbolAtLocation(expression);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    return symbol?.declarations?.find(ts.isClassDeclaration);
  };

  /** How a class's constructor arguments become the code and status of the LedgerError it builds. */
  const shapeOf = (declaration: ts.ClassDeclaration): ErrorClassShape | null => {
    if (shapes.has(declaration)) return shapes.get(declaration)!;
    shapes.set(declaration, null);
    let shape: ErrorClassShape | null = null;
    if (declaration.name?.text === 'LedgerError' && declaration.getSourceFile().fileName.endsWith('errors/ledgerError.ts')) {
      shape = { code: { kind: 'param', index: 0, defaults: [] }, status: { kind: 'param', index: 2, defaults: [] } };
    } else {
      const heritage = declaration.heritageClauses?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
      const parent = heritage ? classOf(heritage.expression) : undefined;
      const parentShape = parent ? shapeOf(parent) : null;
      if (parentShape) {
        const constructor = declaration.members.find(ts.isConstructorDeclaration);
        let superCall: ts.CallExpression | undefined;
        constructor?.body?.forEachChild(function find(node): void {
          if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword) superCall = node;
          else if (!superCall) node.forEachChild(find);
        });
        if (!constructor || !superCall) shape = parentShape;
        else {
          const call = superCall;
          const through = (slot: Slot): Slot => {
            if (slot.kind === 'fixed') return slot;
            const argument = call.arguments[slot.index];
            if (!argument) return { kind: 'fixed', values: slot.defaults };
            if (ts.isIdentifier(argument)) {
              const index = constructor.parameters.findIndex((parameter) => ts.isIdentifier(parameter.name) && parameter.name.text === argument.text);
              if (index >= 0) {
                const initializer = constructor.parameters[index]!.initializer;
                return { kind: 'param', index, defaults: initializer ? (literalsOf(initializer) ?? []) : [] };
              }
            }
            const values = literalsOf(argument);
            if (!values) unreadable.push(`${where(argument)}: super() gets a code or status that is not a literal`);
            return { kind: 'fixed', values: values ?? [] };
          };
          shape = { code: through(parentShape.code), status: through(parentShape.status) };
        }
      }
    }
    shapes.set(declaration, shape);
    return shape;
  };

  const valuesAt = (slot: Slot, call: ts.NewExpression): Array<string | number> | null => {
    if (slot.kind === 'fixed') return slot.values;
    const argument = call.arguments?.[slot.index];
    if (!argument) return slot.defaults;
    return literalsOf(argument);
  };

  const record = (codes: Array<string | number>, statuses: Array<string | number>, node: ts.Node): void => {
    for (const code of codes) {
      for (const status of statuses) {
        if (typeof code === 'string' && typeof status === 'number') uses.push({ code, status, where: where(node) });
      }
    }
  };

  const propertyValue = (object: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined => {
    for (const property of object.properties) {
      if (property.name && ts.isIdentifier(property.name) && property.name.text === name) {
        if (ts.isPropertyAssignment(property)) return property.initializer;
        if (ts.isShorthandPropertyAssignment(property)) return property.name;
      }
    }
    return undefined;
  };

  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node)) {
      const declaration = classOf(node.expression);
      const shape = declaration ? shapeOf(declaration) : null;
      if (shape) {
        const codes = valuesAt(shape.code, node);
        const statuses = valuesAt(shape.status, node);
        if (!codes || !statuses)
          unreadable.push(`${where(node)}: new ${node.expression.getText()}(…) gets a ${codes ? 'status' : 'code'} typed wider than a union of literals`);
        else record(codes, statuses, node);
      }
    } else if (ts.isObjectLiteralExpression(node)) {
      const code = propertyValue(node, 'code');
      const codes = code ? literalsOf(code) : null;
      if (code && codes && codes.length > 0 && codes.every((value) => typeof value === 'string' && CODE_SHAPE.test(value))) {
        // The status sits beside the code, or one object out (`{ status, body: { code } }`).
        const outer = ts.isPropertyAssignment(node.parent) && ts.isObjectLiteralExpression(node.parent.parent) ? node.parent.parent : undefined;
        const status = propertyValue(node, 'status') ?? (outer ? propertyValue(outer, 'status') : undefined);
        if (status) {
          const statuses = literalsOf(status);
          if (!statuses) unreadable.push(`${where(node)}: an error body's status is not a literal`);
          else record(codes, statuses, node);
        }
      }
      // A status → code table: every key an HTTP error status, every value a code.
      const pairs = node.properties.map((property) =>
        ts.isPropertyAssignment(property) && ts.isNumericLiteral(property.name) && ts.isStringLiteral(property.initializer)
          ? { status: Number(property.name.text), code: property.initializer.text }
          : null,
      );
      if (pairs.length > 0 && pairs.every((pair) => pair && pair.status >= 400 && pair.status < 600 && CODE_SHAPE.test(pair.code))) {
        for (const pair of pairs) record([pair!.code], [pair!.status], node);
      }
    }
    node.forEachChild(visit);
  };

  for (const file of program.getSourceFiles()) {
    if (file.isDeclarationFile || !file.fileName.startsWith(join(root, 'src'))) continue;
    visit(file);
  }
  return { uses, unreadable };
}
