// Validates a parsed .planning/config.json against schemas/config.schema.json.
// This file is what runs from source (tests, the compiler). The bundle never
// contains it: build.ts swaps its contents for ajv standalone code generated
// from the same schema and options, so the shipped CLI needs no ajv.
import AjvModule from 'ajv';
import schema from '../../../schemas/config.schema.json' with { type: 'json' };
import { AJV_OPTIONS, stripDocs } from './ajv-options.ts';

export interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}
export type ShapeValidator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

type AjvCtor = new (opts: object) => { compile(schema: unknown): ShapeValidator };
const Ajv = ((AjvModule as unknown as { default?: AjvCtor }).default ?? AjvModule) as unknown as AjvCtor;

export const validateConfigShape: ShapeValidator = new Ajv(AJV_OPTIONS).compile(stripDocs(schema));
