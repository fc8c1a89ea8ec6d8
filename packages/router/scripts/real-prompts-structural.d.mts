import type { RealPrompt } from "./real-prompts-technical.mjs";

/** The pinned snapshot of friuns2/BlackFriday-GPTs-Prompts the FlowGPT prompts are read from. */
export const FLOWGPT: { repo: string; commit: string };
/** The pattern of the file names that were read and labelled. */
export const FILE_NAMES: RegExp;
/** One-by-one labels: intent -> file names under gpts/ (without .md). */
export const FLOWGPT_LABELS: Record<string, string[]>;
/** Every how many structural labels one is used (the others are left out). */
export const STRUCTURAL_STEP: number;
/** Reads the title and the prompt block of one FlowGPT Markdown file. */
export function parseFlowGptFile(markdown: string): { title: string; prompt: string } | undefined;
/** Builds the labelled FlowGPT items; fails on a missing or long prompt or a text already in `existing`. */
export function structuralPrompts(show: (repo: string, path: string, commit: string) => Buffer | string, existing: readonly { question: string }[]): RealPrompt[];
