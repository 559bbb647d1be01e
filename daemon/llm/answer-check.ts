// A model's JSON answer checked against the shape it was asked for. The shapes are zod schemas
// built on first use, so zod is loaded then: most daemons never ask a model, and loading it cost
// every daemon's start-up about 0.15 s of CPU.
import type { z as Zod, ZodType } from 'zod';

export type CheckedAnswer<T> = { value: T; rejected?: undefined } | { value?: undefined; rejected: string };

/** A check of answers of one shape: `build` makes its schema (once), `shape` names it in refusals. */
export function answerCheck<T>(build: (z: typeof Zod) => ZodType<T>, shape: string): (content: unknown) => Promise<CheckedAnswer<T>> {
  let schema: Promise<ZodType<T>> | undefined;
  return async (content) => {
    const answer = parseJsonAnswer(content);
    if ('rejected' in answer) return { rejected: answer.rejected };
    schema ??= import('zod').then(({ z }) => build(z));
    const parsed = (await schema).safeParse(answer.json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return { rejected: `the model's answer does not fit ${shape}: ${issue.path.join('.') || 'answer'}: ${issue.message}` };
    }
    return { value: parsed.data };
  };
}

/** The model's answer text as JSON, or why it is not. */
function parseJsonAnswer(content: unknown): { json: unknown } | { rejected: string } {
  if (typeof content !== 'string') return { rejected: 'the model answered without text' };
  try {
    return { json: JSON.parse(content) };
  } catch {
    return { rejected: `the model's answer is not JSON: ${content.slice(0, 120)}` };
  }
}
