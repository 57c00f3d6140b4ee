// What a command module is: handlers keyed by command path (e.g. 'verify codebase-drift'),
// each turning one parsed invocation into a result. main.ts loads the modules; the
// modules import only this type, so neither depends on the other.
import type { Ctx } from '../core/context.ts';
import type { Invocation } from './parse.ts';
import type { Result } from './output.ts';

export type Handler = (inv: Invocation, ctx: Ctx) => Result | Promise<Result>;
export type HandlerModule = { handlers: Record<string, Handler> };
