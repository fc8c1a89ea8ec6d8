/** A labelled real prompt of the training file. */
export interface RealPrompt {
  id: string;
  question: string;
  intent: string;
  source: string;
}

/** Builds the technical-analysis training items of StackEval, MBPP and NL2Bash, without duplicates of `existing`. */
export function technicalPrompts(show: (repo: string, path: string, commit: string) => Buffer | string, existing: readonly { question: string }[]): RealPrompt[];
