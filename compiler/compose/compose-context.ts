// What the text passes of compose/ need to know about the bundle they write for.
import type { TargetDefinition, TargetScope } from '../targets/target-types.ts';

export interface ComposeContext {
  target: TargetDefinition;
  scope: TargetScope;
  /** The release version, for {version} in target data. */
  version: string;
  /** A router rendered in a nested layout: its rows name files to read. */
  routes?: RouterReads;
}

export interface RouterReads {
  /** Routed command stem → its file, relative to the router's folder. */
  files: ReadonlyMap<string, string>;
  /** The target's words for the table's action column and the sentence after it (nested surface). */
  header: string;
  instruction: string;
}
