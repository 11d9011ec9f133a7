// `npm run docs`: the API reference of every entry point (scripts/entry-points.mjs reads them
// from package.json "exports"), from the TSDoc, with the README as its front page and the
// guides in docs/ as pages of the site. Output: docs-site/ (git-ignored).
import { entryPoints } from './scripts/entry-points.mjs';

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: 'claims-notification-sdk',
  entryPoints: entryPoints().map((entry) => entry.source),
  out: 'docs-site',
  readme: 'README.md',
  projectDocuments: ['docs/*.md'],
  tsconfig: 'tsconfig.json',
  plugin: ['./scripts/typedoc-entry-names.mjs'],
  excludeInternal: true,
  excludePrivate: true,
  // A warning (a broken link, an export whose type is not documented) fails the build.
  treatWarningsAsErrors: true,
  githubPages: false,
  // Source links point at the repository in package.json, so the site builds the same in a
  // checkout without a git remote (a fresh clone has one, a worktree may not).
  sourceLinkTemplate:
    'https://github.com/claims-notification/claims-notification-sdk/blob/{gitRevision}/{path}#L{line}',
  hideGenerator: true,
  sort: ['source-order'],
  highlightLanguages: ['typescript', 'javascript', 'json', 'sh', 'bash', 'text', 'sql', 'jsonc', 'yaml'],
};
