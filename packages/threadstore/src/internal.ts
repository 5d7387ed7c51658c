// `@adaptor/threadstore/internal`: for the SDK's own packages. Not a stable API: no semver promise, and not part
// of the documented surface. The built `internal.js` holds the package's whole runtime code and
// exports every runtime entry's names; the other packages' bundles import this package through it,
// so a cold start loads one module of it (see scripts/build.mjs).

export {};
