/**
 * The User Manuals' chapters and the 17 Fundamentals lessons, read from the Markdown
 * files of `content/` at build time. Only the docs screens import this module, so the
 * text is in their lazily loaded chunk, never in the portal's first load.
 */
import { type Doc, parseDocs } from './library';

const manualFiles = import.meta.glob<string>('./content/manual/*.md', { query: '?raw', import: 'default', eager: true });
const lessonFiles = import.meta.glob<string>('./content/fundamentals/*.md', { query: '?raw', import: 'default', eager: true });

/** The manual's chapters, in order. */
export const MANUAL: readonly Doc[] = parseDocs('manual', manualFiles);
/** The Fundamentals lessons, by number. */
export const LESSONS: readonly Doc[] = parseDocs('lesson', lessonFiles);
