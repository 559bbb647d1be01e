// The product and protocol identity, read once from package.json so there is one source.
import { readFileSync } from 'node:fs';

const packageJson = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as { version: string };

export const ENGRAM_VERSION: string = packageJson.version;
export const PROTOCOL_NAME = 'engram.v1';
