// One set of ajv options for both the build-time standalone validator and the
// in-process validator used when running from source.
export const AJV_OPTIONS = {
  allErrors: true,
  strict: true,
  allowUnionTypes: true,
  messages: true,
} as const;

/** Schema keys that are documentation only, dropped before compiling or embedding. */
export function stripDocs(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema), (key, value) =>
    key === 'description' || key === 'title' || key === '$comment' ? undefined : value,
  );
}
