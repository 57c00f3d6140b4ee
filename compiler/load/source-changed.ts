// The error of a build whose source tree changed under it: a file listed
// when the build began that is gone, or whose bytes are no longer the ones
// whose digest the build took (read-source-tree.ts). Said in one line with
// the file's path (cli.ts); nothing has been written by then.
export class SourceChangedError extends Error {}
