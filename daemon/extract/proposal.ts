// What an extractor proposes: durable facts, each checked before anything is stored. An LLM's
// answer is validated against this shape; one that does not fit is refused whole and reported.
import { answerCheck } from '../llm/answer-check.ts';

export const FACT_KINDS = ['preference', 'decision', 'date', 'commitment', 'correction'] as const;
export type FactKind = (typeof FACT_KINDS)[number];

export interface ExtractedFact {
  text: string;
  kind: FactKind;
  entities: string[];
  speaker?: string;
}

/** The JSON an LLM must answer with, checked. */
export const checkProposal = answerCheck(
  (z) =>
    z
      .object({
        facts: z
          .array(
            z
              .object({
                text: z.string().trim().min(3).max(2000),
                kind: z.enum(FACT_KINDS),
                entities: z.array(z.string().min(1)).max(16).optional(),
              })
              .strict(),
          )
          .max(50),
      })
      .strict(),
  '{"facts": [{text, kind, entities}]}',
);
