import { existsSync } from 'node:fs';
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: existsSync('pending.graphql') ? ['schema.graphql', 'pending.graphql'] : 'schema.graphql',
  documents: ['src/**/*.{ts,tsx}', '!src/gql/**/*'],
  ignoreNoDocuments: true,
  generates: {
    './src/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { MinorAmount: 'number | string', DateTime: 'string', Date: 'string', JSON: 'any', ID: 'string' },
      },
    },
  },
};
export default config;
