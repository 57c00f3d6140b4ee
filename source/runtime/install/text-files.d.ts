// Text files imported as a string: the release public key (a minisign .pub
// file), inlined by esbuild's text loader in the bundle (source/runtime/build.ts)
// and by compiler/bin/ts-hooks.mjs when run from source.
declare module '*.pub' {
  const text: string;
  export default text;
}
