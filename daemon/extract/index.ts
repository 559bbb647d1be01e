// The extractors by name, as `--extractor` picks them.
import { rulesExtractor } from '../core/extraction.ts';
import { chatExtractor, type ChatExtractorConfig, type Extractor } from './llm.ts';

export const EXTRACTOR_NAMES = ['rules', 'ollama', 'openai'] as const;
export type ExtractorName = (typeof EXTRACTOR_NAMES)[number];

export function createExtractor(name: ExtractorName, config: ChatExtractorConfig = {}): Extractor {
  return name === 'rules' ? rulesExtractor : chatExtractor(name, config);
}
