import { existsSync, readdirSync } from 'node:fs';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const featuresDir = new URL('./src/features', import.meta.url);
const features = (existsSync(featuresDir) ? readdirSync(featuresDir, { withFileTypes: true }) : [])
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const recharts = { name: 'recharts', message: 'Charts come from @/components/charts.' };

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'src/api/generated'] },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      ecmaVersion: 2022,
      globals: { ...globals.browser, ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // Charts go through components/charts (recharts wrapped once, one palette).
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/components/charts/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [recharts] }] },
  },
  // A feature does not import another feature (conventions "Web").
  ...features.map((f) => ({
    files: [`src/features/${f}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [recharts],
          patterns: features
            .filter((o) => o !== f)
            .map((o) => ({ group: [`@/features/${o}`, `@/features/${o}/*`], message: 'A feature does not import another feature.' })),
        },
      ],
    },
  })),
  {
    files: ['**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
  // The service worker runs in the browser's worker scope (`self`, `clients`).
  {
    files: ['public/**/*.js'],
    languageOptions: { globals: globals.serviceworker },
  },
);
