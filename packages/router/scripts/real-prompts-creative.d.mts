import type { RealPrompt } from "./real-prompts-technical.mjs";

/** Category page -> the sections read for creative writing. */
export const CREATIVE_SECTIONS: Record<string, string[]>;
/** Category page -> the sections read for everyday advice and knowledge. */
export const LIFE_SECTIONS: Record<string, string[]>;
/** Every how many eligible files of the writing sections one was read. */
export const CREATIVE_STEP: number;
/** Every how many eligible files of the life-style sections one was read. */
export const LIFE_STEP: number;
/** One-by-one labels: intent -> file names under gpts/ (without .md). */
export const CREATIVE_LABELS: Record<string, string[]>;
/** Every how many creative labels one is used. */
export const CREATIVE_LABEL_STEP: number;
/** Whether a prompt begins in English (common-word share of its first 300 characters, no CJK or Cyrillic letters). */
export function beginsInEnglish(prompt: string): boolean;
/** The file names of some sections of the category pages, in page order, each once. */
export function filesOfSections(pageText: (page: string) => string, sections: Record<string, string[]>): string[];
/** The sampling rule: every `step`-th eligible file of the sections. */
export function sampleFlowGptSections(show: (repo: string, path: string, commit: string) => Buffer | string, sections: Record<string, string[]>, step: number): string[];
/** Builds the labelled FlowGPT items; fails on a file outside `sampled`, a missing or long prompt or a text already in `existing`. */
export function creativePrompts(show: (repo: string, path: string, commit: string) => Buffer | string, existing: readonly { question: string }[], sampled?: readonly string[]): RealPrompt[];
