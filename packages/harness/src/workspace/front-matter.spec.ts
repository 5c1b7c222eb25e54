import { FrontMatterError, formatFrontMatter, parseFrontMatter } from './front-matter.js';

describe('parseFrontMatter', () => {
  it('splits the YAML fields from the Markdown body (lists, CRLF, a BOM)', () => {
    const doc = parseFrontMatter(
      '---\nname: reviewer\ndescription: Reviews a diff\ntools: [read_file, grep_files]\nmodel: small\n---\n\nRead the diff.\n',
      'subagents/reviewer.md',
    );
    expect(doc).toEqual({
      data: { name: 'reviewer', description: 'Reviews a diff', tools: ['read_file', 'grep_files'], model: 'small' },
      body: 'Read the diff.',
      hasFrontMatter: true,
    });
    expect(parseFrontMatter('\uFEFF---\r\nname: a\r\n---\r\nbody\r\n', 'a.md')).toEqual({
      data: { name: 'a' },
      body: 'body',
      hasFrontMatter: true,
    });
    expect(parseFrontMatter('---\n---\nonly body', 'e.md')).toEqual({
      data: {},
      body: 'only body',
      hasFrontMatter: true,
    });
  });

  it('reads a file without front matter as all body', () => {
    expect(parseFrontMatter('# Title\n\n---\nnot: front matter\n', 'x.md')).toEqual({
      data: {},
      body: '# Title\n\n---\nnot: front matter',
      hasFrontMatter: false,
    });
  });

  it('names the file and the line of invalid YAML, and refuses front matter that is not a mapping', () => {
    expect(() => parseFrontMatter('---\nname: a\ntools: [read_file\n---\nx', 'subagents/a.md')).toThrow(
      FrontMatterError,
    );
    expect(() => parseFrontMatter('---\nname: a\ntools: [read_file\n---\nx', 'subagents/a.md')).toThrow(
      /^subagents\/a\.md: the front matter is not valid YAML at line \d/,
    );
    expect(() => parseFrontMatter('---\n- a\n- b\n---\nx', 'skills/s/SKILL.md')).toThrow(
      'skills/s/SKILL.md: the front matter must be a mapping of fields (name: ..., description: ...), got a list.',
    );
  });

  it('formats what it parses back', () => {
    const data = { name: 'deploy', description: 'Ship: a release', uses: 3 };
    expect(parseFrontMatter(formatFrontMatter(data, '\n1. build\n2. ship\n'), 'f.md')).toEqual({
      data,
      body: '1. build\n2. ship',
      hasFrontMatter: true,
    });
  });
});
