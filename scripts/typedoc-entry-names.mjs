// A TypeDoc plugin: each entry point's module is named as users import it
// ('claims-notification-sdk/testing'), not by its file ('testing').
import { Converter, ReflectionKind } from 'typedoc';
import { entryPoints } from './entry-points.mjs';

/** What TypeDoc names a module by default: its source path without src/ and index.ts. */
const fileName = (source) => source.replace(/^src\//, '').replace(/(\/index)?\.ts$/, '') || 'index';

/** @param {import('typedoc').Application} app */
export function load(app) {
  const names = new Map(entryPoints().map((entry) => [fileName(entry.source), entry.importName]));
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.getReflectionsByKind(ReflectionKind.Module)) {
      const name = names.get(module.name);
      if (name) module.name = name;
    }
  });
}
