// The extractors by name, as `--extractor` picks them.
import { rulesExtractor } from '../core/extraction.ts';
import { ollamaExtractor, openAiExtractor, type ChatExtractorConfig, type Extractor } from './llm.ts';

export const EXTRACTOR_NAMES = ['rules', 'ollama', 'openai'] as const;
export type ExtractorName = (typeof EXTRACTOR_NAMES)[number];

export function createExtractor(name: ExtractorName, config: ChatExtractorConfig = {}): Extractor {
  if (name === 'ollama') return ollamaExtractor(config);
  if (name === 'openai') return openAiExtractor(config);
  return rulesExtractor;
}
