/**
 * Every public declaration and field has TSDoc in the types a user's editor reads. The
 * declarations are emitted from the current source in memory (as tsup's dts build does:
 * `stripInternal`), then every export of every entry point (package.json "exports") and every field reachable from
 * them (members, parameters, return types) is checked for a doc comment. Declaration emit
 * drops the comments of a zod schema's fields, so this also catches a public type that is a
 * bare `z.infer`: write it out instead (see test/types/response-types.test-d.ts).
 */
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { entryPoints } from '../../scripts/entry-points.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRIES = entryPoints().map((entry) => entry.source);
// Where the declarations would go; they are kept in memory, nothing is written.
const OUT = join(ROOT, '.tsdoc-check');

/** The entries' declaration files, emitted in memory, and a program over them. */
function declarationProgram(): { program: ts.Program; entries: string[] } {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    types: ['node'],
    declaration: true,
    emitDeclarationOnly: true,
    stripInternal: true,
    rootDir: join(ROOT, 'src'),
    outDir: OUT,
  };
  const emitted = new Map<string, string>();
  const source = ts.createProgram(
    ENTRIES.map((e) => join(ROOT, e)),
    options,
  );
  source.emit(undefined, (name, text) => emitted.set(name, text));
  const host = ts.createCompilerHost({ ...options, noEmit: true });
  const { fileExists, readFile, directoryExists } = host;
  host.fileExists = (name) => emitted.has(name) || fileExists.call(host, name);
  host.readFile = (name) => emitted.get(name) ?? readFile.call(host, name);
  host.directoryExists = (name) =>
    [...emitted.keys()].some((file) => file.startsWith(`${name}/`)) ||
    (directoryExists?.call(host, name) ?? false);
  const entries = ENTRIES.map((e) => join(OUT, e.replace(/^src\//, '').replace(/\.ts$/, '.d.ts')));
  for (const entry of entries) if (!emitted.has(entry)) throw new Error(`no declarations for ${entry}`);
  const program = ts.createProgram(entries, { ...options, noEmit: true, declaration: false }, host);
  return { program, entries };
}

/** `Type.member` paths of public declarations and fields without TSDoc, with where they are. */
function undocumented(): string[] {
  const { program, entries } = declarationProgram();
  const checker = program.getTypeChecker();
  const ours = (d: ts.Declaration) => d.getSourceFile().fileName.startsWith(OUT);
  const where = (d: ts.Declaration | undefined) =>
    d
      ? `${relative(OUT, d.getSourceFile().fileName)}:${d.getSourceFile().getLineAndCharacterOfPosition(d.getStart()).line + 1}`
      : '?';
  const documented = (symbol: ts.Symbol) =>
    symbol.getDocumentationComment(checker).length > 0 ||
    symbol.getJsDocTags(checker).some((tag) => tag.name !== 'internal');
  const found = new Set<string>();
  const seen = new Set<ts.Type>();

  const visitSignatures = (label: string, type: ts.Type, depth: number) => {
    for (const signature of [...type.getCallSignatures(), ...type.getConstructSignatures()]) {
      visit(`${label}()`, signature.getReturnType(), depth + 1);
      for (const parameter of signature.getParameters())
        visit(`${label}(${parameter.name})`, checker.getTypeOfSymbol(parameter), depth + 1);
    }
  };
  const visit = (label: string, type: ts.Type, depth: number): void => {
    if (depth > 5 || seen.has(type)) return;
    seen.add(type);
    if (type.isUnionOrIntersection()) for (const member of type.types) visit(label, member, depth);
    if (!(type.flags & ts.TypeFlags.Object)) return;
    for (const property of checker.getPropertiesOfType(type)) {
      const declarations = (property.declarations ?? []).filter(ours);
      if (declarations.length === 0 || property.name.startsWith('__') || property.name.startsWith('#'))
        continue;
      if (declarations.some((d) => ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Private)) continue;
      const name = `${label}.${property.name}`;
      if (!documented(property)) found.add(`${name} (${where(declarations[0])})`);
      const propertyType = checker.getTypeOfSymbol(property);
      visit(name, propertyType, depth + 1);
      visitSignatures(name, propertyType, depth);
    }
  };

  for (const entry of entries) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(entry) as ts.SourceFile);
    if (!module) throw new Error(`${entry} is not a module`);
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = (symbol.declarations ?? []).find(ours);
      if (!documented(symbol)) found.add(`${symbol.name} (${where(declaration)})`);
      if (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Class))
        visit(symbol.name, checker.getDeclaredTypeOfSymbol(symbol), 0);
      if (symbol.flags & ts.SymbolFlags.Value && declaration) {
        const valueType = checker.getTypeOfSymbolAtLocation(symbol, declaration);
        visitSignatures(symbol.name, valueType, 0);
        if (symbol.flags & ts.SymbolFlags.Class) {
          for (const member of checker.getPropertiesOfType(valueType))
            if (member.name !== 'prototype' && (member.declarations ?? []).some(ours) && !documented(member))
              found.add(`${symbol.name}.${member.name} (static)`);
        } else if (!(symbol.flags & ts.SymbolFlags.Function)) visit(symbol.name, valueType, 1);
      }
    }
  }
  return [...found].sort();
}

describe('TSDoc on the public types', () => {
  it(`every export of ${entryPoints()
    .map((entry) => entry.subpath)
    .join(', ')}, and every field reachable from one, has a doc comment`, () => {
    expect(undocumented()).toEqual([]);
  }, 120_000);
});
