#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that the documents name only files and directories that exist.

Usage: check-paths.py [--root DIR] [--kernel DIR] [FILE...]
  DIR of --root: the repository, by default this script's parent's parent.
  DIR of --kernel: the pristine kernel tree (make lint passes $CACHE/linux-$KVER).
  FILE: the documents to read, by default DOCUMENTS below (those that exist).

Reads README.md, HACKING.md, tools/*/README.md, Documentation/bpf/bpf_ksym.rst and
Documentation/userspace-api/kallsyms_query.rst, and prints "FILE:LINE: PATH does not exist"
for each path they name that does not; exit status 1 if any.

What is a path:
  - markdown: a link's target, [text](target) or ![text](target) (not a URL; "#anchor"
    stripped; a bare "#anchor" skipped), resolved against the document's directory; and
    an inline code span, `like/this.c` or `like/this/`;
  - rst: an inline literal, ``like/this.c``; and the argument of the directives that read
    a file (FILE_DIRECTIVES: literalinclude, include, image and figure, resolved against
    the document's directory, or Documentation/ when it starts with "/"; kernel-doc and
    kernel-include, against the tree root as the kernel's Sphinx extension does).
  Code spans and literals count only if they contain a "/", look like a relative path (only
  letters, digits and "_.+@-/"; a trailing ":LINE" is dropped) and start with a name that
  exists where they resolve (below) or is build/ or "."/"..": so `iter/ksym` (a BPF
  iterator), `stream_success/stream_arena_callback_fault` (a test), `4/4`, and the
  blazesym crate's own `src/kernel/kquery.rs` or `data/` are not paths of ours, while
  `scripts/renamed.sh` is one. Absolute paths (`/proc/kallsyms`, guest paths), `~/...`,
  `-x/y`, URLs and anything with a space, "<", "*", "$" or "=" are never paths. Fenced
  code blocks of markdown are skipped.

Where a path resolves: a code span or literal against the repository root, else the
document's directory (tools/blazesym/README.md's `check/`), and in rst also against
Documentation/ (kernel docs name pages relative to it). It exists if it exists there in the
repository or in the kernel tree (the documents name upstream files such as
kernel/bpf/core.c, and the overlay's files where scripts/overlay.map puts them in the tree:
kernel/bpf/ksym/registry.rs is the repository's bpf_ksym/registry.rs), or is under build/ (generated: build/bench/query.json), or, for
a name without an extension, NAME.c or NAME.rs exists (a program built from it:
scripts/kallsyms, tools/bpf/bpf_ksym_bench/bench_query). A path that leaves the repository
(../shared/...) is skipped. Without the kernel tree, a path found in neither the repository
nor build/ is reported "not checked (no kernel tree at DIR)", which does not fail (a code
span that starts with a name only the kernel has, kernel/bpf/core.c, is then no path at all).

Python 3 standard library only.
"""
import argparse
import glob
import os
import re
import sys

DOCUMENTS = ['README.md', 'HACKING.md', 'tools/*/README.md', 'Documentation/bpf/bpf_ksym.rst',
             'Documentation/userspace-api/kallsyms_query.rst']
# Directives whose argument is a file: relative to the document, or to the tree root.
FILE_DIRECTIVES = {'literalinclude': 'doc', 'include': 'doc', 'image': 'doc', 'figure': 'doc',
                   'kernel-doc': 'root', 'kernel-include': 'root'}
GENERATED = 'build'
# What a relative path may contain (after a trailing ":LINE" is dropped).
PATH_CHARS = re.compile(r'^[\w.+@/-]+$')
NEVER = ('<', '*', '$', '=', '://', ' ', '\t', '\n')

MD_FENCE = re.compile(r'^ {0,3}(`{3,}|~{3,})')
MD_CODE = re.compile(r'(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)', re.S)
MD_LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+["\'(][^)]*)?\)')
MD_REF = re.compile(r'^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)', re.M)
RST_LITERAL = re.compile(r'(?<!`)``(?!`)(.+?)(?<!`)``(?!`)', re.S)
RST_DIRECTIVE = re.compile(r'^[ \t]*\.\.[ \t]+([\w-]+)::[ \t]*(\S+)', re.M)


def blank_fences(text):
    """The markdown text with its fenced code blocks' lines emptied (line numbers kept)."""
    out, fence = [], None
    for line in text.split('\n'):
        m = MD_FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
            out.append(line if fence is None else '')
        else:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not line.strip()[len(m.group(1)):].strip():
                fence = None
            out.append('')
    return '\n'.join(out)


def line_of(text, pos):
    return text.count('\n', 0, pos) + 1


def references(path, text):
    """(line, token, kind) for each path candidate of a document; kind is 'code' (a code
    span or literal), 'doc' (resolved against the document's directory) or 'root'."""
    refs = []
    if path.endswith('.rst'):
        for m in RST_LITERAL.finditer(text):
            refs.append((m.start(), m.group(1), 'code'))
        for m in RST_DIRECTIVE.finditer(text):
            kind = FILE_DIRECTIVES.get(m.group(1))
            if kind:
                refs.append((m.start(2), m.group(2), kind))
    else:
        text = blank_fences(text)
        spans = []
        for m in MD_CODE.finditer(text):
            spans.append(m.span())
            token = m.group(2)
            if len(m.group(1)) > 1:  # `` `x` ``: the content is trimmed of one space
                token = token.strip()
            refs.append((m.start(), token, 'code'))

        def in_code(pos):
            return any(a <= pos < b for a, b in spans)
        for regex in (MD_LINK, MD_REF):
            for m in regex.finditer(text):
                if not in_code(m.start()):
                    refs.append((m.start(1), m.group(1), 'doc'))
    return [(line_of(text, pos), token, kind) for pos, token, kind in sorted(refs)]


def plausible(token):
    """The token as a relative path, or None if it does not look like one."""
    token = re.sub(r':\d+(-\d+)?$', '', token)
    if any(s in token for s in NEVER) or token.startswith(('/', '~', '-')):
        return None
    if '/' not in token or not PATH_CHARS.match(token):
        return None
    return token


def link_target(token):
    """A link's target as a path, or None (a URL, an anchor, a mail address)."""
    if re.match(r'^[a-zA-Z][a-zA-Z0-9+.-]*:', token) or token.startswith(('#', '/', '~')):
        return None
    token = token.split('#', 1)[0].split('?', 1)[0]
    return token or None


def overlay_map(root):
    """[(repository folder, its path in the kernel tree)] of scripts/overlay.map, for the
    folders the overlay moves."""
    pairs = []
    path = os.path.join(root, 'scripts', 'overlay.map')
    if os.path.exists(path):
        for line in open(path):
            fields = line.split('#', 1)[0].split()
            if len(fields) == 2 and fields[0] != fields[1]:
                pairs.append((fields[0], fields[1]))
    return pairs


class Tree:
    """The repository and, if present, the kernel tree it overlays."""

    def __init__(self, root, kernel):
        self.root = os.path.realpath(root)
        self.kernel = os.path.realpath(kernel) if kernel and os.path.isdir(kernel) else None
        self.overlay = overlay_map(self.root)

    def inside(self, rel):
        return rel != '..' and not rel.startswith('../')

    def in_repo(self, rel):
        """rel is in the repository, as itself or as the tree path of an overlay file."""
        for repo, tree in self.overlay:
            if rel == tree or rel.startswith(tree + '/'):
                rel = repo + rel[len(tree):]
                break
        return os.path.lexists(os.path.join(self.root, rel))

    def in_kernel(self, rel):
        return self.kernel is not None and os.path.lexists(os.path.join(self.kernel, rel))

    def generated(self, rel):
        return rel == GENERATED or rel.startswith(GENERATED + '/')

    def built(self, rel, where):
        base, ext = os.path.splitext(rel.rstrip('/'))
        return not ext and not rel.endswith('/') and any(
            where(base + e) for e in ('.c', '.rs'))

    def state(self, rel):
        """'ok', 'missing' or 'unchecked' (not in the repository, no kernel tree)."""
        if self.generated(rel):
            return 'ok'
        for where in (self.in_repo, self.in_kernel):
            if where(rel) or self.built(rel, where):
                return 'ok'
        return 'missing' if self.kernel else 'unchecked'


def candidates(tree, doc, token, kind):
    """(path, the repository-relative paths it may mean) for a token, or None if it is no
    path; path is the token without a link's "#anchor" or a ":LINE"."""
    docdir = os.path.dirname(doc)
    if kind == 'code':
        token = plausible(token)
        if token is None:
            return None
        bases = [''] + ([docdir] if docdir else [])
        if doc.endswith('.rst'):
            bases.append('Documentation')
    else:
        token = link_target(token) if kind == 'doc' and not doc.endswith('.rst') else token
        if token is None or any(s in token for s in NEVER):
            return None
        bases = {'doc': [docdir], 'root': ['']}[kind]
        if doc.endswith('.rst') and kind == 'doc' and token.startswith('/'):
            bases = ['Documentation']  # Sphinx: "/x" is relative to the source directory
    rels = [os.path.normpath(os.path.join(b, token.lstrip('/'))) for b in bases]
    rels = [r for r in rels if tree.inside(r)]
    if not rels:
        return None  # outside the repository: ../shared/...
    if kind == 'code':
        # A code span is a path of ours only if it starts where one would.
        first = token.split('/', 1)[0]
        if first not in ('.', '..') and not any(
                tree.generated(os.path.normpath(os.path.join(b, first))) or
                tree.in_repo(os.path.join(b, first)) or tree.in_kernel(os.path.join(b, first))
                for b in bases):
            return None
    return token, rels


def check(tree, docs):
    """The findings, as (file, line, path, state) with state 'missing' or 'unchecked'."""
    findings, seen = [], set()
    for doc in docs:
        with open(os.path.join(tree.root, doc), encoding='utf-8') as f:
            text = f.read()
        for line, token, kind in references(doc, text):
            found = candidates(tree, doc, token, kind)
            if found is None:
                continue
            token, rels = found
            states = [tree.state(r) for r in rels]
            if 'ok' in states:
                continue
            key = (doc, line, token)
            if key not in seen:
                seen.add(key)
                findings.append((doc, line, token,
                                 'missing' if 'missing' in states else 'unchecked'))
    return findings


def documents(root):
    docs = []
    for pattern in DOCUMENTS:
        for p in sorted(glob.glob(os.path.join(root, pattern))):
            docs.append(os.path.relpath(p, root))
    return docs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument('--kernel', help='the pristine kernel tree')
    ap.add_argument('files', nargs='*', help='documents, relative to --root')
    args = ap.parse_args(argv)
    tree = Tree(args.root, args.kernel)
    docs = args.files or documents(tree.root)
    findings = check(tree, docs)
    bad = 0
    for doc, line, token, state in findings:
        if state == 'missing':
            print('%s:%d: %s does not exist' % (doc, line, token))
            bad += 1
        else:
            print('%s:%d: %s not checked (no kernel tree at %s)' % (doc, line, token, args.kernel))
    if bad:
        return 1
    unchecked = '; without the kernel tree, %d not checked' % len(findings)
    print('paths: ok (%d documents%s)' % (len(docs), '' if tree.kernel else unchecked))
    return 0


if __name__ == '__main__':
    sys.exit(main())
