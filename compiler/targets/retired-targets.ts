// Runtime ids whose programs are gone (compiler/data/retired-targets.json):
// asking for one names the date and the successor instead of "unknown target".
import retiredData from '../data/retired-targets.json' with { type: 'json' };
import { schemaValidator } from '../schemas.ts';

export interface RetiredTarget {
  id: string;
  name: string;
  sunset: string;
  successor: string;
  note: string;
}

let checked: RetiredTarget[] | undefined;

/** The retired ids, validated once against schemas/retired-targets.schema.json. */
export function retiredTargets(): RetiredTarget[] {
  if (!checked) {
    const validate = schemaValidator('retired-targets.schema.json');
    if (!validate(retiredData)) throw new Error(`internal: compiler/data/retired-targets.json does not match its schema: ${JSON.stringify(validate.errors)}`);
    checked = retiredData.retired;
  }
  return checked;
}

/** The usage message for a retired id, or null when the id is not retired. */
export function retiredMessage(id: string): string | null {
  const retired = retiredTargets().find((entry) => entry.id === id);
  if (!retired) return null;
  return `expected a current target id, found "${id}": ${retired.name} was retired on ${retired.sunset} (${retired.note}); use --target ${retired.successor}`;
}
