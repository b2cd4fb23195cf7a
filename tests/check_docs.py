#!/usr/bin/env python3
"""The front door holds: README.md is at most 200 lines, and every relative link and image in
README.md and docs/*.md names a file of the repository (and, with a #fragment into a Markdown
file, one of its headings, spelt as GitHub makes heading anchors).

Usage: check_docs.py REPO_ROOT      (exit 0 when all hold; 1 listing each problem as FILE:LINE)
       check_docs.py --self-test    (the checks catch what they should, on made-up pages)
"""
import pathlib
import re
import sys
import tempfile

README_MAX_LINES = 200

# [text](target) and ![alt](target); the target may carry a "title". Reference-style links are
# not used in these pages.
LINK = re.compile(r'!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
HTML_SRC = re.compile(r'<(?:img|a)\b[^>]*\b(?:src|href)="([^"]+)"', re.I)
FENCE = re.compile(r'^\s*(```|~~~)')
INLINE_CODE = re.compile(r'(`+)(?:(?!\1).)+?\1')


def github_slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r'`', '', heading.strip().lower())
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)  # a link's text stays
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def anchors(path):
    seen = {}
    out = set()
    in_fence = False
    for line in path.read_text(encoding='utf-8').split('\n'):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        m = None if in_fence else re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
        if m:
            slug = github_slug(m.group(1))
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f'{slug}-{n}')
    return out


def links(path):
    """(line number, target) of every link and image outside code."""
    in_fence = False
    for number, line in enumerate(path.read_text(encoding='utf-8').split('\n'), 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        bare = INLINE_CODE.sub('', line)
        for m in LINK.finditer(bare):
            yield number, m.group(1)
        for m in HTML_SRC.finditer(bare):
            yield number, m.group(1)


def check(root):
    root = pathlib.Path(root).resolve()
    problems = []
    readme = root / 'README.md'
    count = len(readme.read_text(encoding='utf-8').splitlines())
    if count > README_MAX_LINES:
        problems.append(f'README.md: {count} lines, more than {README_MAX_LINES} (move the rest to docs/)')
    pages = [readme] + sorted((root / 'docs').glob('*.md'))
    for page in pages:
        rel_page = page.relative_to(root)
        for number, target in links(page):
            if re.match(r'^[a-z][a-z0-9+.-]*:', target, re.I):  # http:, https:, mailto:
                continue
            path_part, _, fragment = target.partition('#')
            dest = page if path_part == '' else (page.parent / path_part).resolve()
            where = f'{rel_page}:{number}: {target}'
            try:
                dest.relative_to(root)
            except ValueError:
                problems.append(f'{where}: leaves the repository')
                continue
            if not dest.exists():
                problems.append(f'{where}: no such file ({dest.relative_to(root)})')
                continue
            if fragment and dest.suffix == '.md' and fragment not in anchors(dest):
                problems.append(f'{where}: {dest.relative_to(root)} has no heading #{fragment}')
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as d:
        root = pathlib.Path(d)
        (root / 'docs' / 'img').mkdir(parents=True)
        (root / 'docs' / 'img' / 'a.svg').write_text('<svg/>')
        (root / 'schema.json').write_text('{}')
        (root / 'docs' / 'page.md').write_text(
            '# Page\n\n## The passes, and kbp why\n\n![a](img/a.svg) [s](../schema.json) '
            '[h](#the-passes-and-kbp-why) [w](https://example.com/x)\n'
            '```\n[not a link](nowhere.md)\n```\n`[code](nowhere.md)`\n')
        (root / 'README.md').write_text('# kbp\n\n![a](docs/img/a.svg) [p](docs/page.md#page)\n')
        assert check(root) == [], check(root)
        (root / 'README.md').write_text('x\n' * (README_MAX_LINES + 1))
        assert any('201 lines' in p for p in check(root)), check(root)
        (root / 'README.md').write_text('![a](img/a.svg) [p](docs/page.md#nope) [q](docs/gone.md)\n')
        found = check(root)
        assert any('README.md:1: img/a.svg: no such file' in p for p in found), found
        assert any('has no heading #nope' in p for p in found), found
        assert any('docs/gone.md' in p for p in found), found
        (root / 'README.md').write_text('ok\n')
        (root / 'docs' / 'page.md').write_text('![b](img/b.png) [up](../../outside.md)\n')
        found = check(root)
        assert any('docs/page.md:1: img/b.png' in p for p in found), found
        assert any('leaves the repository' in p for p in found), found
    print('check_docs self-test: ok')


def main(argv):
    if argv[1:] == ['--self-test']:
        self_test()
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(argv[1])
    for p in problems:
        print(p)
    if problems:
        return 1
    root = pathlib.Path(argv[1])
    print(f'README.md: {len((root / "README.md").read_text(encoding="utf-8").splitlines())} lines; '
          f'every relative link and image in README.md and docs/*.md resolves')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
