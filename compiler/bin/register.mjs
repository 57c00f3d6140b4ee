// Importing this module installs the TypeScript hooks for later imports.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
