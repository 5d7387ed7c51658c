// ESLint (flat config) for the workspace: `pnpm lint`, part of `pnpm test`.
// - A modest rule set: @eslint/js and typescript-eslint "recommended" (no type-aware rules, so it
//   stays fast), with the few rules this codebase deliberately departs from turned off below.
// - Import boundaries: a package's source may import only packages of a lower layer (see
//   docs/design.md "Packages and layers"); an import of the same or a higher layer is an error.
import { readFileSync } from "node:fs";
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** Layer of each workspace package; a package imports only from lower layers. */
export const LAYERS = {
  "@adaptor/errors": 0,
  "@adaptor/driver": 1,
  "@adaptor/tool": 1,
  "@adaptor/skill": 1,
  "@adaptor/mcp": 1,
  "@adaptor/threadstore": 1,
  "@adaptor/threadstore-sqlite": 2,
  "@adaptor/threadstore-postgres": 2,
  "@adaptor/claude": 2,
  "@adaptor/codex": 2,
  "@adaptor/acp": 2,
  "@adaptor/cursor": 2,
  "@adaptor/codebuddy": 2,
  "@adaptor/testkit": 2,
  "@adaptor/sessionrecorder": 2,
  "@adaptor/a2a-client": 2,
  adaptor: 3,
  "@adaptor/bridge": 4,
  "@adaptor/a2a": 4,
  "@adaptor/fleet": 4,
};

/** Folder under packages/ → npm name. */
const FOLDERS = {
  errors: "@adaptor/errors",
  driver: "@adaptor/driver",
  tool: "@adaptor/tool",
  skill: "@adaptor/skill",
  mcp: "@adaptor/mcp",
  threadstore: "@adaptor/threadstore",
  "threadstore-sqlite": "@adaptor/threadstore-sqlite",
  "threadstore-postgres": "@adaptor/threadstore-postgres",
  claude: "@adaptor/claude",
  codex: "@adaptor/codex",
  acp: "@adaptor/acp",
  cursor: "@adaptor/cursor",
  codebuddy: "@adaptor/codebuddy",
  testkit: "@adaptor/testkit",
  sessionrecorder: "@adaptor/sessionrecorder",
  "a2a-client": "@adaptor/a2a-client",
  adaptor: "adaptor",
  bridge: "@adaptor/bridge",
  a2a: "@adaptor/a2a",
  fleet: "@adaptor/fleet",
};

/** One config per package: its non-test source may not import a package of its own layer or above. */
function boundaries() {
  return Object.entries(FOLDERS).map(([folder, name]) => {
    const layer = LAYERS[name];
    const forbidden = Object.keys(LAYERS).filter((other) => other !== name && LAYERS[other] >= layer);
    return {
      files: [`packages/${folder}/src/**/*.ts`],
      ignores: ["**/*.test.ts", "**/*.test-d.ts"],
      rules: {
        "no-restricted-imports": [
          "error",
          {
            patterns: forbidden.map((other) => ({
              group: [other, `${other}/*`],
              message: `layer violation: ${name} (layer ${layer}) may import only lower layers; ${other} is layer ${LAYERS[other]} (docs/design.md "Packages and layers").`,
            })),
          },
        ],
      },
    };
  });
}

/**
 * One config per package for its tests: a test imports only workspace packages its own
 * package.json lists (dependencies or devDependencies). Suites that need the root SDK and a driver
 * together live in the private package under test/.
 */
function testDependencies() {
  return Object.entries(FOLDERS).map(([folder, name]) => {
    const manifest = JSON.parse(readFileSync(new URL(`./packages/${folder}/package.json`, import.meta.url), "utf8"));
    const declared = new Set([name, ...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})]);
    const undeclared = Object.keys(LAYERS).filter((other) => !declared.has(other));
    return {
      files: [`packages/${folder}/test/**/*.ts`, `packages/${folder}/src/**/*.test.ts`, `packages/${folder}/src/**/*.test-d.ts`],
      rules: {
        "no-restricted-imports": [
          "error",
          {
            patterns: undeclared.map((other) => ({
              group: [other, `${other}/*`],
              message: `undeclared test dependency: ${name}'s tests import ${other}, which its package.json does not list; a suite that needs it belongs in the private test package under test/.`,
            })),
          },
        ],
      },
    };
  });
}

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "**/dist/**",
      "docs/api/**",
      ".packs/**",
      ".scratch/**",
      "coverage/**",
      "packages/codex/src/protocol/generated/**",
      "**/*.d.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        setImmediate: "readonly",
        AbortController: "readonly",
        AbortSignal: "readonly",
        TextDecoder: "readonly",
        TextEncoder: "readonly",
        structuredClone: "readonly",
        performance: "readonly",
        fetch: "readonly",
      },
    },
    rules: {
      // A `let` read by a closure before its one assignment (a callback that needs the object being
      // built) cannot be a `const`.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      // Off: it flags the defensive `let x = default;` followed by an assignment in every branch.
      "no-useless-assignment": "off",
      // Unused names prefixed with `_` are deliberate (drained loops, ignored parameters).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  ...boundaries(),
  ...testDependencies(),
);
