#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How `bench_docs.py check` finds a figure stated twice, and a headline older than the
kernel code it speaks for (bench_docs.py's docstring says what the check as a whole does).

duplicates(): a measured figure stated in two places (two paragraphs, table rows or list
items) of the documents of DOCS. A figure is a number with what it counts: a time (`534 s`,
`~43 min`), a size (`1.8 GB`), instructions (`2.09 M`), a ratio (`379x`, `1/379`), a
percentage or a count of results (`471 passed`, `882,730 operations`, `191,397 stress
operations`). Figures match by value and unit, so `2.09 M` is not `2.09x` nor `2.09 ms`,
while `15 min` is `about 15 minutes`. Not read: the blocks bench_docs.py generates, sample
output (a fenced block not marked `sh`, though a shell block's comments are read; an rst
literal block after `::` or `.. code-block::`; a Markdown block indented by four spaces),
inline code, and quoted titles or messages ("... longer than 255 bytes"). How far a match
is trusted depends on how likely it is by chance (reach()):

- four significant digits or more (`2,502 s`, `113,027,676 operations`), or three with a
  decimal point (`2.09 M`): anywhere;
- three (`534 s`, `471 passed`, `379x`), two with a decimal point (`1.5 GB`), a time or a
  size of two digits (`42 minutes`, `11 GB`) and any percentage: between two paragraphs
  about the same thing, or where either is about nothing in particular. A paragraph is
  about the `make` targets and the program names that its code spans and its heading name
  (`make test-kcsan`, `stress_test`), not paths nor the project's own names (OWN_NAMES):
  two test boots that took 109 s each are two facts;
- never: a round number or one of one digit (`60 s`, `2 cores`, `1,000,000 inputs`), zero,
  a power of two that is not a time (`4,096 bytes`, `65,536 answers`), and the default of
  a setting the Makefile's help documents (`SOAK_GROWTH_KB=4096`, so `4,096 kB` too):
  settings, not results.

stale_trees(): each tree a headline block names (`tree 3249ca5`; HEADLINES) must be a
commit of HEAD's history after which no commit changed KERNEL_CODE, unless the document
says, outside the block and in one sentence or clause, that the figures of that tree
predate one of those commits: the tree, a word "predate(s)", and the commit's hash or its
subject in quotes. Where git cannot tell (not a git checkout, or a shallow clone that lacks
the tree), the check fails and says so: `make lint` needs a git checkout anyway (`make
series` reads HEAD), and CI clones in full.

orphan_notes(): such a note goes when its figures are measured again. A clause saying
"predate(s)" that names in backquotes a hash which is neither a tree a headline names nor
a commit after one fails.
"""
import collections
import glob
import os
import re
import subprocess

# The documents whose figures must each be stated once (paths relative to the root).
DOCS = ('README.md', 'HACKING.md', 'docs/*.md', 'Documentation/**/*.rst')
# What a headline was measured on, and what measures it: a change here may change its
# figures. The kernel code and its configuration, the benchmark programs, blazesym's patches.
KERNEL_CODE = ('bpf_ksym', 'kallsyms_iter', 'kallsyms_query', 'rust', 'include', 'patches',
               'config', 'Kconfig', 'tools/bpf/bpf_ksym_bench', 'tools/blazesym/patches')
# The generated blocks whose trees must not be older than the kernel code, by document.
HEADLINES = {'README.md': ('headline',)}
# Code spans too common to say what a paragraph is about: the project's own names.
OWN_NAMES = {'bpf_ksym', 'kallsyms_query', 'kallsyms_iter', 'kallsyms', 'ksym-query',
             'blazesym'}


# What a count of results counts ("471 passed", "882,730 operations").
COUNTS = ('passed failed skipped operations ops answers checked inputs outcomes faults tests '
          'subtests results calls checks reads comparisons checkpoints programs loads attaches '
          'cases runs boots')


def _units():
    """Unit spellings -> (kind, canonical unit)."""
    units = {}
    for kind, canon, spellings in (
            ('time', 'ns', 'ns'), ('time', 'us', 'us µs'), ('time', 'ms', 'ms'),
            ('time', 's', 's sec secs second seconds'),
            ('time', 'min', 'min mins minute minutes'), ('time', 'h', 'h hour hours'),
            ('size', 'B', 'B bytes'), ('size', 'kB', 'kB KB'), ('size', 'KiB', 'KiB'),
            ('size', 'MB', 'MB'), ('size', 'MiB', 'MiB'), ('size', 'GB', 'GB'),
            ('size', 'GiB', 'GiB'),
            ('instructions', 'k', 'k'), ('instructions', 'M', 'M'), ('instructions', 'G', 'G'),
            ('instructions', '', 'instructions'),
            ('count', '', COUNTS)):
        units.update((s, (kind, canon)) for s in spellings.split())
    return units


_UNITS = _units()


def _alternatives(words):
    return '|'.join(sorted(map(re.escape, words), key=len, reverse=True))


# A number (not part of a word, a version or a path), then a ratio's "x", a percent sign,
# a unit ("M instructions" is "M"), or one word and a count ("191,397 stress operations").
FIGURE = re.compile(r'(?<![\w./-])(?P<inv>1/)?(?P<whole>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?'
                    r'(?:(?P<x>x)\b|\s?(?P<pct>%)|\s?(?P<unit>' + _alternatives(_UNITS) +
                    r')\b|\s[A-Za-z][\w-]*\s(?P<count>' + _alternatives(COUNTS.split()) +
                    r')\b)?')
SHELL_FENCE = re.compile(r'^\s*```\s*(sh|bash|shell)\b')
FENCE = re.compile(r'^\s*```')
# rst: a paragraph ending in "::" and the code directives introduce a literal block.
RST_LITERAL = re.compile(r'^\s*(?!\.\. )\S.*::\s*$|^\s*::\s*$|^\s*\.\. (code-block|code|'
                         r'sourcecode|literalinclude)::')
LIST_ITEM = re.compile(r'^\s*([-*+]|\d+\.)\s')
HASH = re.compile(r'\b[0-9a-f]{7,40}\b')
TREE = re.compile(r'tree `([0-9a-f]{7,40})\+?`')
NOTED_TREE = re.compile(r'`([0-9a-f]{7,40})\+?`')
PREDATES = re.compile(r'\bpredat', re.I)
# A setting the Makefile's help documents, with a numeric default: "#   SOAK_S=3600   ...".
SETTING = re.compile(r'^#\s+[A-Z][A-Z0-9_]*=(\d+)\s', re.M)


class Figure:
    """One figure of a line: its value as typed (thousands separators dropped), and what it
    counts as (kind, unit); kind None for a bare number."""

    def __init__(self, m):
        self.whole, self.frac = m.group('whole').replace(',', ''), m.group('frac') or ''
        self.value = self.whole + self.frac
        if m.group('x') or m.group('inv'):
            self.kind, self.unit = 'ratio', 'x'
        elif m.group('pct'):
            self.kind, self.unit = 'percent', '%'
        elif m.group('unit') or m.group('count'):
            self.kind, self.unit = _UNITS[m.group('unit') or m.group('count')]
        else:
            self.kind = self.unit = None
        self.text = m.group(0).strip()

    def significant(self):
        """Significant digits, leading and (of a whole number) trailing zeros left out: a
        round number is a setting or an estimate far more often than a measurement."""
        if self.frac:
            return len((self.whole + self.frac[1:]).lstrip('0'))
        return len(self.whole.strip('0'))

    def key(self):
        return (self.kind, self.unit, float(self.value))

    def __repr__(self):
        return 'Figure(%r)' % self.text


def unit_of(word):
    """(kind, unit) of a unit as written ('ms' -> ('time', 'ms')), (None, None) if none."""
    return _UNITS.get(word.strip(), (None, None))


def figures(line):
    """The figures of a line, bare numbers included."""
    return [Figure(m) for m in FIGURE.finditer(line)]


def documents(root):
    """The documents of DOCS that exist under root, relative paths, sorted."""
    found = set()
    for pattern in DOCS:
        for path in glob.glob(os.path.join(root, pattern), recursive=True):
            found.add(os.path.relpath(path, root))
    return sorted(found)


def settings(root):
    """The numeric defaults of the settings the Makefile's help documents."""
    try:
        with open(os.path.join(root, 'Makefile')) as f:
            return {float(v) for v in SETTING.findall(f.read())}
    except OSError:
        return set()


def _indent(line):
    return len(line) - len(line.lstrip())


def prose_lines(text, spans, doc=''):
    """(line number, line) of each line of text, '' for those outside the prose: the
    generated blocks (spans: (name, start, end) of each block's content, as
    bench_docs.blocks() gives them, markers included) and sample output (above). Of a
    shell block, the comments, which state facts, after the command they are about."""
    inside = set()
    for _name, start, end in spans:
        first = text.count('\n', 0, start) + 1
        inside.update(range(first - 1, text.count('\n', 0, end) + 2))
    rst = doc.endswith('.rst')
    fence = None  # 'sh' or 'sample' inside a fenced block
    literal = None  # inside a literal or indented block: the indentation it must exceed
    opens = None  # after a line that opens an rst literal block: that line's indentation
    last, blank = '', True  # the last non-blank line; whether the line before was blank
    for n, line in enumerate(text.splitlines(), 1):
        indent = _indent(line)
        if literal is not None and line.strip() and indent <= literal:
            literal = None
        if literal is not None or n in inside:
            out = ''
        elif FENCE.match(line):
            fence = None if fence is not None else ('sh' if SHELL_FENCE.match(line) else 'sample')
            out = ''
        elif fence == 'sample':
            out = ''
        elif fence == 'sh':
            command, _, comment = line.partition('#')
            out = '`%s` %s' % (command.strip(), comment) if comment else ''
        elif not line.strip():
            out = line
        elif rst and opens is not None and indent > opens:
            literal, out = opens, ''
        elif not rst and blank and indent >= 4 and \
                _indent(last) < 2 and not LIST_ITEM.match(last):
            literal, out = 3, ''
        else:
            directive = RST_LITERAL.match(line) if rst else None
            opens = indent if directive else None
            out = '' if directive and directive.group(1) else line
        if line.strip():
            last, blank = line, False
        else:
            blank = True
        yield n, out


# A line that starts a paragraph of its own: a table row, a list item, a heading.
NEW_PARAGRAPH = re.compile(r'^\s*(\||[-*+] |\d+\. |#|\.\. )')
HEADING = re.compile(r'^#+ ')
RST_UNDERLINE = re.compile(r'^([=~^-])\1{2,}\s*$')
CODE = re.compile(r'`+([^`]+)`+')
QUOTED = re.compile(r'"[^"]*"')
PROGRAM = re.compile(r'^[a-z][a-z0-9_.-]*$')


def paragraphs(text, spans, doc=''):
    """The prose of text (prose_lines) as (heading, paragraph): the heading a paragraph is
    under, and its lines, a list of (line number, line)."""
    lines = list(prose_lines(text, spans, doc))
    heading, para = '', []
    for i, (n, line) in enumerate(lines):
        underlined = i + 1 < len(lines) and RST_UNDERLINE.match(lines[i + 1][1]) and line.strip()
        if not line.strip() or NEW_PARAGRAPH.match(line) or underlined or RST_UNDERLINE.match(line):
            if para:
                yield heading, para
            para = []
            if HEADING.match(line) or underlined:
                heading = line
                continue
            if RST_UNDERLINE.match(line):
                continue
        if line.strip():
            para.append((n, line))
    if para:
        yield heading, para


def subjects(text):
    """What a text is about, as far as its code spans say: the targets of `make` commands
    (`make test-faults` -> test-faults) and program names (``stress_test``), but for the
    project's own names; paths, constants and functions say nothing."""
    out = set()
    for span in CODE.findall(text):
        words = span.split()
        if len(words) > 1 and words[0] == 'make':
            out.add(words[1].lower())
        elif len(words) == 1 and PROGRAM.match(words[0]) and words[0] not in OWN_NAMES:
            out.add(words[0])
    return out


def stated(line):
    """What a line states: without its code spans and quoted titles or messages, which
    name and do not state (`BPF_KSYM_SEED=0`, "... longer than 255 bytes")."""
    return QUOTED.sub('""', CODE.sub('``', line))


def reach(fig, known=frozenset()):
    """How far a figure can be told from a coincidence: 'any' (wherever it meets its
    copy), 'subject' (in a paragraph about the same thing, or about nothing in particular)
    or None (a setting, a round number); known: the settings' values."""
    value = float(fig.value)
    if fig.kind is None or value == 0 or value in known:
        return None
    if fig.kind not in ('time', 'ratio', 'percent') and not fig.frac and \
            value >= 64 and int(value) & (int(value) - 1) == 0:
        return None  # 4,096 bytes, 65,536 answers: a power of two is a limit someone set
    sig = fig.significant()
    if sig >= 4 or (fig.frac and sig >= 3):
        return 'subject' if fig.kind == 'percent' else 'any'
    if sig == 3 or (fig.frac and sig == 2) or (sig == 2 and fig.kind in ('time', 'size')):
        return 'subject'
    return None


def spans_of(text, blocks):
    """The generated blocks' spans of text, or None if they are broken (bench_docs.py's
    check of the blocks says how)."""
    try:
        return list(blocks(text))
    except ValueError:
        return None


def read(root, doc):
    with open(os.path.join(root, doc)) as f:
        return f.read()


# Where a figure is stated: the document, the first line of its paragraph, its line, the
# figure, how far it reaches and what its paragraph is about.
Place = collections.namedtuple('Place', 'doc para line fig reach about')


def related(p, q):
    """Whether two places are about the same thing, as far as their paragraphs say."""
    return not p.about or not q.about or bool(p.about & q.about)


def duplicates(root, blocks):
    """Errors, one per figure stated in more than one place (paragraph). blocks(text) gives
    the generated blocks' spans (bench_docs.blocks)."""
    known = settings(root)
    where = collections.defaultdict(list)
    for doc in documents(root):
        text = read(root, doc)
        spans = spans_of(text, blocks)
        if spans is None:
            continue
        for heading, para in paragraphs(text, spans, doc):
            about = subjects(heading + ' ' + ' '.join(line for _n, line in para))
            for n, line in para:
                for fig in figures(stated(line)):
                    how = reach(fig, known)
                    if how:
                        where[fig.key()].append(Place(doc, para[0][0], n, fig, how, about))
    errors = []
    for places in where.values():
        if places[0].reach == 'subject':
            places = [p for p in places if any(
                (p.doc, p.para) != (q.doc, q.para) and related(p, q) for q in places)]
        paras = {(p.doc, p.para) for p in places}
        if len(paras) < 2:
            continue  # once, or twice in one paragraph ("1.8 GB ... 1.8 GB" of two trees)
        errors.append('%s stated in %d places: %s: keep it in one (docs/testing.md for test '
                      'results and times) and link to it from the others' % (
                          places[0].fig.text, len(paras),
                          ', '.join(sorted({'%s:%d' % (p.doc, p.line) for p in places}))))
    return sorted(errors)


def git(root, *args):
    r = subprocess.run(['git', '-C', root] + list(args), capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def changes_since(root, tree):
    """[(hash, subject)] of the commits to KERNEL_CODE after tree, newest first; None if
    tree is no commit of HEAD's history (not in the repository, or rebased away)."""
    if git(root, 'rev-parse', '--verify', '--quiet', tree + '^{commit}') is None or \
            git(root, 'merge-base', '--is-ancestor', tree, 'HEAD') is None:
        return None
    out = git(root, 'log', '--format=%H%x09%s', tree + '..HEAD', '--', *KERNEL_CODE) or ''
    return [tuple(line.split('\t', 1)) for line in out.splitlines()]


def clauses(prose):
    """The sentences and clauses of prose, each on one line."""
    for para in re.split(r'\n\s*\n', prose):
        for clause in re.split(r'(?<=[.;])\s+', ' '.join(para.split())):
            yield clause


def says_predates(clause, tree, changes):
    """Whether clause says that tree's figures predate one of changes."""
    if tree not in clause or not PREDATES.search(clause):
        return False
    named = [h for h in HASH.findall(clause) if h != tree]
    return any(full.startswith(h) for h in named for full, _ in changes) or \
        any('"%s"' % subject in clause for _, subject in changes)


def headlines(root, blocks):
    """(document, its prose, {tree: the block naming it}) of each document of HEADLINES."""
    for doc, names in HEADLINES.items():
        if not os.path.exists(os.path.join(root, doc)):
            continue
        text = read(root, doc)
        spans = spans_of(text, blocks)
        if spans is None:
            continue
        prose = '\n'.join(line for _n, line in prose_lines(text, spans, doc))
        trees = {}
        for name, start, end in spans:
            if name in names:
                for tree in TREE.findall(text[start:end]):
                    trees.setdefault(tree, name)
        yield doc, prose, trees


def history_missing(root):
    """Why the history cannot say what changed after a tree, or None if it can."""
    if git(root, 'rev-parse', '--is-inside-work-tree') is None:
        return 'this is not a git checkout'
    if (git(root, 'rev-parse', '--is-shallow-repository') or '').strip() == 'true':
        return 'this is a shallow clone (git fetch --unshallow)'
    return None


def stale_trees(root, blocks):
    """Errors, one per tree of a headline that the kernel code has moved past unsaid, or
    that the history cannot place."""
    errors = []
    for doc, prose, trees in headlines(root, blocks):
        for tree, name in sorted(trees.items()):
            changes = changes_since(root, tree)
            if changes is None:
                why = history_missing(root)
                errors.append(
                    '%s: the %s block names tree `%s`: %s' % (doc, name, tree, (
                        'cannot tell what changed since, as %s: make lint needs a full clone'
                        % why) if why else 'no commit of HEAD\'s history (rebased away?): '
                        'set the record\'s tree to the commit it became, or measure again'))
                continue
            if not changes or any(says_predates(c, tree, changes) for c in clauses(prose)):
                continue
            first = changes[-3:][::-1]
            errors.append(
                '%s: the %s block\'s figures from tree `%s` predate %d change%s to the kernel '
                'code (%s), %s: %s. Measure them again, or say under the block, in one '
                'sentence, that the figures of `%s` predate a named change (its hash or '
                '"subject")' % (
                    doc, name, tree, len(changes), 's' if len(changes) > 1 else '',
                    ', '.join(KERNEL_CODE), 'the earliest' if len(first) == 1 else
                    'the earliest %d' % len(first),
                    '; '.join('%s %s' % (h[:7], s) for h, s in first), tree))
    return errors


def orphan_notes(root, blocks):
    """Errors, one per note about a tree no headline names any more."""
    errors = []
    if history_missing(root):
        return errors  # stale_trees() says so
    for doc, prose, trees in headlines(root, blocks):
        later = {full for tree in trees for full, _ in changes_since(root, tree) or ()}
        for clause in clauses(prose):
            if not PREDATES.search(clause):
                continue
            noted = {h for h in NOTED_TREE.findall(clause)
                     if not any(full.startswith(h) for full in later)}
            for tree in sorted(noted - set(trees)):
                errors.append('%s: a note says what the figures of tree `%s` predate, but '
                              'no headline names that tree any more: remove the note'
                              % (doc, tree))
    return errors
