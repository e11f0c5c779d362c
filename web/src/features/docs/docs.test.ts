/**
 * The manuals and lessons as content: the 17 lessons numbered 1 to 17, every link in
 * the text going to a screen that exists (and a chapter, lesson or section that
 * exists), every Help link of the screens' table pointing to a section, and the search
 * finding the section a reader looks for.
 */
import { HELP, helpFor } from '@/config/help';
import { USER_SIDEBAR } from '@/lib/access/sidebar';
import { ruleFor } from '@/lib/access/routes';

import { DIAGRAM_LESSONS } from './components/lesson-diagrams';
import { LESSONS, MANUAL } from './content';
import { type Doc, parseDoc, slugify } from './library';
import { buildIndex, marksFor, snippet } from './search';

const ALL: readonly Doc[] = [...MANUAL, ...LESSONS];
const section = (topic: string, id: string) => MANUAL.find((d) => d.slug === topic)?.sections.find((s) => s.id === id);

test('the 17 fundamentals lessons are numbered 1 to 17, each titled with its number and drawn', () => {
  expect(LESSONS.map((d) => d.number)).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
  for (const d of LESSONS) {
    expect(d.title, d.slug).toMatch(new RegExp(`^${d.number}\\. \\S`));
    expect(d.sections.length, d.slug).toBeGreaterThanOrEqual(3);
    // Each ends with where the idea shows in the product.
    expect(d.sections.at(-1)?.id, d.slug).toMatch(/^in-gemba|^a-weekly-kaizen-routine$/);
  }
  expect([...DIAGRAM_LESSONS].sort((a, b) => a - b)).toEqual(LESSONS.map((d) => d.number));
});

test('the manual has its chapters in order, each with sections of text', () => {
  expect(MANUAL.map((d) => d.slug)).toEqual([
    'getting-started', 'define-operation', 'record', 'label', 'train', 'validation', 'deploy', 'devices', 'cameras',
    'analytics', 'trace', 'lines', 'issue-center', 'barcodes', 'users-roles', 'notifications', 'opc', 'assistant',
  ]);
  for (const d of MANUAL) for (const s of d.sections) expect(s.text.length, `${d.slug}#${s.id}`).toBeGreaterThan(40);
});

test('a document is read into sections with ids; a repeated heading is refused', () => {
  const d = parseDoc('manual', 'x/03-some-thing.md', "# Title\n\nIntro.\n\n## A device's page\n\nText.\n\n## Keys & more\n\n- a\n");
  expect(d).toMatchObject({ slug: 'some-thing', number: 3, title: 'Title' });
  expect(d.sections.map((s) => [s.id, s.title, s.text])).toEqual([
    ['', '', 'Intro.'],
    ['a-devices-page', "A device's page", 'Text.'],
    ['keys-more', 'Keys & more', '- a'],
  ]);
  expect(() => parseDoc('manual', '01-a.md', '# T\n## Same\nx\n## Same\ny')).toThrow('two sections are "same"');
  expect(() => parseDoc('manual', 'a.md', '# T')).toThrow('NN-slug.md');
  expect(slugify('Cycle time vs. lead time!')).toBe('cycle-time-vs-lead-time');
});

test('every link in the manuals and lessons goes to a screen, chapter, lesson and section that exist', () => {
  let seen = 0;
  for (const d of ALL) {
    for (const s of d.sections) {
      for (const [, text, href] of s.text.matchAll(/\[([^\]]+)\]\(([^)\s]+)\)/g)) {
        seen++;
        const where = `${d.slug}#${s.id}: [${text}](${href})`;
        expect(href, where).toMatch(/^\//);
        const url = new URL(href!, 'https://x.test');
        expect(ruleFor(url.pathname), where).toBeDefined();
        const topic = url.searchParams.get('topic');
        const lesson = url.searchParams.get('lesson');
        const doc = topic !== null ? MANUAL.find((m) => m.slug === topic) : lesson !== null ? LESSONS.find((l) => String(l.number) === lesson) : null;
        if (topic !== null || lesson !== null) expect(doc, where).toBeDefined();
        if (url.hash) expect(doc?.sections.some((x) => `#${x.id}` === url.hash), where).toBe(true);
      }
    }
  }
  expect(seen).toBeGreaterThan(50);
});

test("every screen's Help link points to a section of the manual", () => {
  for (const h of HELP) {
    expect(ruleFor(h.route.replace(/\/:[^/]+\?$/, '').replace(/:[^/]+/, '1')), h.route).toBeDefined();
    expect(section(h.topic, h.section), `${h.route} → ${h.topic}#${h.section}`).toBeDefined();
  }
  // Each screen of the sidebar the manual explains has one.
  // Not in the manual: Pathfinder (no screen), nor the manuals themselves.
  const unexplained = ['Pathfinder', 'User Manuals', 'App Fundamentals'];
  const explained = USER_SIDEBAR.flatMap((s) => s.entries)
    .filter((e) => !unexplained.includes(e.label))
    .map((e) => e.path)
    .filter((p): p is string => p !== null);
  expect(explained.length).toBeGreaterThan(15);
  for (const p of explained) expect(helpFor(p), p).not.toBeNull();
  expect(helpFor('/user/devices/7')).toBe('/user/user-manual?topic=devices#a-devices-page');
  expect(helpFor('/cycle-trace/abc')).toBe('/user/user-manual?topic=trace#cycle-trace');
  expect(helpFor('/user/opc')).toBe('/user/user-manual?topic=opc#the-opc-screen');
  expect(helpFor('/user/assistant')).toBe('/user/user-manual?topic=assistant#asking-a-question');
  expect(helpFor('/user/setting')).toBe('/user/user-manual?topic=users-roles#your-profile');
  expect(helpFor('/audit-log')).toBe('/user/user-manual?topic=users-roles#the-audit-log');
  // The labeler's profile is outside the manuals' roles.
  expect(helpFor('/labeler/setting')).toBeNull();
});

describe('search', () => {
  const index = buildIndex(ALL);
  const first = (q: string) => index.search(q)[0];

  test('finds the section a reader looks for, linking to it with the words', () => {
    expect(first('takt')).toMatchObject({ doc: '5. Takt time', kind: 'lesson' });
    expect(first('takt')?.href).toMatch(/^\/user\/fundamentals\?lesson=5&q=takt#[a-z-]+$/);
    expect(first('enrolment code')).toMatchObject({ doc: 'Devices and updates', title: 'Adding a device' });
    expect(first('blur')).toMatchObject({ title: 'Privacy blur regions' });
    expect(first('barcode changeover')?.doc).toBe('Barcodes');
    expect(first('5S')?.doc).toBe('12. 5S');
    expect(first('poka yoke')?.doc).toBe('14. Poka-yoke: mistake-proofing');
    // Prefixes and a slip of the keyboard still find it.
    expect(first('bottlen')?.doc).toBe('8. Bottlenecks and the theory of constraints');
    expect(first('confusion matrx')?.title).toBe("Reading the model's figures");
    // The OPC UA explorer's and the assistant's chapters.
    expect(first('OPC UA endpoint')?.doc).toBe("OPC UA and the line's PLC");
    expect(first('bind node metadata key')).toMatchObject({ doc: "OPC UA and the line's PLC", title: 'Binding a node to a camera' });
    expect(first('semantic ranker')).toMatchObject({ doc: 'The Kaizen Assistant', title: 'Retrieval options' });
    expect(first('language model did not answer')?.title).toBe('With a language model');
  });

  test('a result carries the words around the match; nothing found is empty', () => {
    const hit = first('Revoke credentials');
    expect(hit?.snippet).toMatch(/Revoke credentials/);
    expect(index.search('zzzqqq')).toEqual([]);
    expect(index.search('  ')).toEqual([]);
  });

  test('highlighting marks the words that begin with what was searched', () => {
    const m = marksFor('takt Cycle');
    expect('The takt time and cycle times, retakt'.match(m!)).toEqual(['takt', 'cycle']);
    expect(marksFor('a')).toBeNull();
    expect(snippet('a '.repeat(200) + 'needle here', marksFor('needle'))).toMatch(/^… .*needle here$/);
  });
});
