// ESLint (flat config) for the site's classic scripts and the test/bench tools written in JavaScript.
// Lint only: building the site never needs Node. Run by tests/test_lint.py (so .ci/run runs it).
"use strict";
const js = require("@eslint/js");
const globals = require("globals");

module.exports = [
  { ignores: ["node_modules/", "site/", ".venv/", ".tools/", "bench/out/"] },
  js.configs.recommended,
  {
    // The site: classic scripts (file:// refuses modules), each an IIFE adding to window.CalibTutorial.
    files: ["static/js/**/*.js"],
    languageOptions: { ecmaVersion: 2017, sourceType: "script", globals: { ...globals.browser } },
    rules: {
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
      "no-var": "off",
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-implicit-globals": "error",
    },
  },
  {
    // Node tools; their page.evaluate() callbacks run in the browser, hence both sets of globals.
    files: ["**/*.mjs"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node, ...globals.browser } },
  },
  {
    files: ["eslint.config.js"],
    languageOptions: { sourceType: "commonjs", globals: { ...globals.node } },
  },
];
