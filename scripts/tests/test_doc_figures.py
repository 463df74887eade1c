# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/doc_figures.py, through `bench_docs.py check` (make lint's
`figures` line): a figure stated twice fails, a headline older than the kernel code fails
unless the README says so, and figures that only look alike pass.

Each test writes documents into a fake repository (records in docs/bench/, a README.md with
the generated headline, a docs/benchmarks.md with its blocks, a docs/testing.md, a
HACKING.md, a Documentation/ page and a Makefile whose help documents settings), a git
repository whose one commit the records name; the headline tests add commits to the kernel
code. The last tests read this repository (never writing to it), and inject a duplicate
and a stale headline into a clone of it.
"""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import bench_docs  # noqa: E402
import doc_figures  # noqa: E402
from test_bench_docs import (BENCH, QUERY, block, clone_of_this_repo, fake_repo,  # noqa: E402
                             point_at)

TESTING = '''# Testing

## CI

`.ci/run` runs `make lint`, `make test-all` and `make test-debug`.

## Times

| target | first | again |
|---|---|---|
| `make test` | a kernel | the boot: 109 s |
| `make test-debug` | the debug kernel | the fuzz boot 109 s, up to 4 minutes |
| `make test-faults` | its kernel | the boot, about 16 minutes |
| CI (`make lint`, `make test-all`) | 2,502 s from a fresh clone | 986 s with warm caches, about 16 minutes |

## Latest results

### KCSAN (`make test-kcsan`)

471 passed, 0 failed, 2 skipped; the 60 s stress run: 191,397 operations, 0 wrong.

### `make test`

472 passed, 0 failed, 2 skipped, a 60 s stress run for the debug kernel, 1,000,000 inputs.
'''

MAKEFILE = '''# x: the help.
#
# Variables (make VAR=value, or the environment):
#   SOAK_S=3600              seconds make soak runs
#   SOAK_GROWTH_KB=4096      how far make soak lets each memory figure grow (kB)
#   KVM_PROBE_S=15           seconds the KVM probe waits

all:
'''


def write(root, path, text):
    path = os.path.join(str(root), path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def read(root, path):
    with open(os.path.join(str(root), path)) as f:
        return f.read()


def append(root, path, text):
    write(root, path, read(root, path) + text)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A fake repository whose documents pass: every figure once, the blocks rendered."""
    for name, data in (('query', QUERY), ('bench', BENCH)):
        write(tmp_path, 'docs/bench/%s.json' % name, json.dumps(data))
    write(tmp_path, 'README.md', '# x\n\n' + block('headline') + '\nSee docs/testing.md.\n\n'
          '```\n    ... 2m30s: 496 test results so far (0 failed)\n472 passed, 0 failed\n```\n')
    write(tmp_path, 'docs/benchmarks.md',
          '# Benchmarks\n\n```sh\nmake bench   # the kernels of `make test-all`\n```\n\n' +
          block('bench') + block('bench-arm64') + block('query') + '\nText.\n' +
          block('query-blazesym') + block('query-churn') + block('query-icount') +
          block('query-blazesym-icount') + block('query-steady-icount') + block('query-steady'))
    write(tmp_path, 'tools/blazesym/cover-letter.md',
          'Figures.\n' + block('query-blazesym-icount') + block('query-steady-icount'))
    write(tmp_path, 'docs/testing.md', TESTING)
    write(tmp_path, 'HACKING.md', '# Hacking\n\n`make series-check` took 4,137 s.\n')
    write(tmp_path, 'Documentation/bpf/bpf_ksym.rst',
          'Reliability tests\n=================\n\n* ``stress_test`` (15 s by default; the '
          'debug kernel ran it for 60 s).\n')
    write(tmp_path, 'Makefile', MAKEFILE)
    return fake_repo(monkeypatch, tmp_path)


def test_documents_with_each_figure_once_pass(repo):
    assert bench_docs.check() == 0


@pytest.mark.parametrize('texts, first, second', [
    # The same figure typed into a second document.
    ({'README.md': 'CI from a fresh clone: 2,502 s.'}, 'README.md:', 'docs/testing.md:'),
    # Typed again with other separators, or in other words for the same unit.
    ({'README.md': 'CI from a fresh clone: 2502 s.'}, 'README.md:', 'docs/testing.md:'),
    ({'HACKING.md': 'KCSAN (`make test-kcsan`): 471 passed.'}, 'HACKING.md:',
     'docs/testing.md:'),
    ({'README.md': '| `make test-faults` | the boot takes ~16 min |'}, 'README.md:',
     'docs/testing.md:'),
    # A paragraph that names nothing matches whatever the other is about.
    ({'README.md': 'KCSAN found nothing in 471 passed.'}, 'README.md:', 'docs/testing.md:'),
    ({'README.md': 'The first build took 534 s here.',
      'docs/benchmarks.md': 'A first build: 534 s.'}, 'README.md:', 'docs/benchmarks.md:'),
    # Twice in one document, in two paragraphs; a two-digit time too.
    ({'docs/testing.md': 'The KCSAN run checked 191,397 operations.'}, 'docs/testing.md:',
     'docs/testing.md:'),
    ({'docs/testing.md': 'Upstream\'s suite takes 42 minutes.\n\nIt ran for 42 minutes.'},
     'docs/testing.md:', 'docs/testing.md:'),
    # A count with a word between it and what it counts.
    ({'README.md': 'KCSAN: 191,397 stress operations.'}, 'README.md:', 'docs/testing.md:'),
    # A figure of a shell block's comment.
    ({'docs/benchmarks.md': '```sh\nmake lint   # 4,137 s\n```'}, 'HACKING.md:',
     'docs/benchmarks.md:'),
    # The kernel's own documentation counts.
    ({'Documentation/bpf/bpf_ksym.rst': 'The soak ran 113,027,676 operations.',
      'README.md': 'The soak: 113,027,676 operations.'}, 'Documentation/bpf/bpf_ksym.rst:',
     'README.md:'),
])
def test_figure_stated_twice_fails(repo, capsys, texts, first, second):
    for doc, text in texts.items():
        append(repo, doc, '\n' + text + '\n')
    assert bench_docs.check() == 1
    err = capsys.readouterr().err
    assert 'stated in 2 places' in err and first in err and second in err, err


@pytest.mark.parametrize('texts', [
    # Two facts that happen to be 109 s: a test boot and a fuzz boot (docs/testing.md), and
    # a third under another subject in another document.
    {'README.md': 'The demo (`make run`) reads its log in 109 s.'},
    # Two-digit times of different things: the fault injection boot and CI's warm run are
    # "about 16 minutes" in docs/testing.md already.
    {'README.md': 'A `make soak` checkpoint every 16 minutes.'},
    # Settings, round and one-digit numbers, and zero, stated everywhere.
    {'README.md': '`make test-debug`: a 60 s stress run, 1,000,000 inputs, 0 failed.'},
    # The value of a setting the Makefile documents, in a unit or in other words.
    {'README.md': 'The guest waits 15 s for the kernel (`KVM_PROBE_S`).',
     'docs/testing.md': 'A `make stress` run of 15 s.'},
    {'README.md': 'Memory may grow by 4,096 kB (`SOAK_GROWTH_KB`), for 3600 s.',
     'docs/testing.md': 'Growth up to 4,096 kB each, over 3,600 seconds.'},
    # Powers of two: limits, not measurements.
    {'README.md': 'Names of up to 4,096 bytes; a cache of 65,536 answers.',
     'docs/testing.md': 'At most 65,536 answers, names of 4,096 bytes.'},
    # Sample output: a format, not a result; a fenced block, an indented one, rst's.
    {'docs/testing.md': '```\n472 passed, 0 failed, 2 skipped\n```'},
    {'HACKING.md': 'It prints:\n\n    472 passed, 0 failed, 2 skipped\n\nThat is all.'},
    {'Documentation/bpf/bpf_ksym.rst': 'It prints::\n\n  472 passed\n  191,397 operations\n\n'
                                       'Or:\n\n.. code-block:: sh\n\n  471 passed\n'},
    # Inline code: names, not facts.
    {'README.md': 'Boot with `ksym_stress=191,397 operations` to repeat it.'},
    # A list item indented by four spaces is no sample: its figure is stated (and once).
    {'HACKING.md': '- a list\n\n    whose item goes on: 534 s.'},
    # A quoted title.
    {'docs/testing.md': 'The patch "selftests/bpf: read lines longer than 255 bytes".'},
    {'README.md': 'Names are cut at 255 bytes in "read lines longer than 255 bytes".'},
    # Twice in one paragraph: two trees of one size.
    {'README.md': 'The prepared tree (1.8 GB) and the pristine tree (1.8 GB).'},
    # Versions and hashes are not figures.
    {'README.md': 'rustc 1.95, clang 22, Linux 7.3.4, QEMU 7.2, tree `3249ca5`.'},
    # Percentages with a decimal point are matched by subject, not anywhere.
    {'README.md': '`make bench`: 52.3% of a read.', 'HACKING.md': '`make test`: 52.3% done.'},
    # The project's own names and paths say nothing of what a paragraph is about.
    {'README.md': 'A `make test-kcsan` boot reads `/proc/kallsyms` (`bpf_ksym`) in 471 ms.',
     'HACKING.md': '`make stress` reads `/proc/kallsyms` (`bpf_ksym`) 471 ms apart.'},
])
def test_figures_alike_by_chance_pass(repo, texts):
    for doc, text in texts.items():
        append(repo, doc, '\n' + text + '\n')
    assert bench_docs.check() == 0


def test_a_list_items_indented_paragraph_is_read(repo, capsys):
    append(repo, 'HACKING.md', '\n- a list\n\n    whose item goes on: 191,397 operations.\n')
    assert bench_docs.check() == 1
    assert 'HACKING.md:7' in capsys.readouterr().err


def test_a_figure_of_the_prose_is_not_a_table_cell_of_another_unit(repo):
    """The known false positive: docs/benchmarks.md's prose "7,000 instructions of 2.09 M"
    against a new table cell that happened to read 2.09 (a ratio, or milliseconds)."""
    data = json.loads(read(repo, 'docs/bench/query.json'))
    data['records'].append({'workload': 'cold_distinct', 'n': 2000, 'unit': 'ms',
                            'ioctl': 2.09, 'batch': 1.0})
    write(repo, 'docs/bench/query.json', json.dumps(data))
    bench_docs.render_all()
    doc = read(repo, 'docs/benchmarks.md')
    assert '| 2.09 ms | 1 ms |' in doc and 'ioctl/batch 2.09x' in doc
    append(repo, 'docs/benchmarks.md', '\nTried and not kept: a forward search whose first '
           'step is the last distance (7,000 instructions of 2.09 M).\n')
    assert bench_docs.check() == 0


def test_a_figure_of_the_prose_is_not_a_rounded_cell_of_another_workload(repo, capsys):
    """The same, in the table's own unit: an icount cell of 2.087 M instructions rounds to
    the prose's 2.09 M, which speaks of no workload of the table; one that names it is a
    copy."""
    data = dict(QUERY, info=dict(QUERY['info'], mode='icount'),
                records=[{'workload': 'cold_distinct', 'n': 2000, 'unit': 'ms',
                          'ioctl': 6.43, 'batch': 2.087}])
    write(repo, 'docs/bench/query-icount.json', json.dumps(data))
    bench_docs.render_all()
    assert '| 2.087 M instructions |' in read(repo, 'docs/benchmarks.md')
    append(repo, 'docs/benchmarks.md', '\nA forward search (7,000 instructions of 2.09 M).\n')
    assert bench_docs.check() == 0
    append(repo, 'docs/benchmarks.md', '\nA cold_distinct batch: 2.09 M instructions.\n')
    assert bench_docs.check() == 1
    assert '2.09 copied from a generated table' in capsys.readouterr().err


@pytest.mark.parametrize('copy', ['2.09 ms', '2.09x', 'about 2.09 ms'])
def test_a_table_cell_typed_again_in_its_unit_fails(repo, capsys, copy):
    data = json.loads(read(repo, 'docs/bench/query.json'))
    data['records'].append({'workload': 'cold_distinct', 'n': 2000, 'unit': 'ms',
                            'ioctl': 2.09, 'batch': 1.0})
    write(repo, 'docs/bench/query.json', json.dumps(data))
    bench_docs.render_all()
    append(repo, 'docs/benchmarks.md', '\nA cold lookup takes %s.\n' % copy)
    assert bench_docs.check() == 1
    assert 'copied from a generated table' in capsys.readouterr().err


def test_generated_blocks_repeat_each_other_freely(repo):
    """The same records rendered in two documents (the blazesym table in the README too):
    one source, not a figure stated twice."""
    append(repo, 'README.md', '\n' + block('query-blazesym'))
    bench_docs.render_all()
    assert '| 129.7 ms | 0.625 ms | 208x |' in read(repo, 'README.md')
    assert '| 129.7 ms | 0.625 ms | 208x |' in read(repo, 'docs/benchmarks.md')
    assert bench_docs.check() == 0


# Stale headlines: a git repository whose kernel code moves after the measured tree.

def git(root, *args):
    return subprocess.run(['git', '-C', str(root)] + list(args), check=True,
                          capture_output=True, text=True).stdout.strip()


def commit(root, path, text, subject):
    write(root, path, text)
    git(root, 'add', '-A')
    git(root, 'commit', '-q', '-m', subject)
    return git(root, 'rev-parse', 'HEAD')


@pytest.fixture
def history(repo):
    """The repository's history goes on: the kernel code at the measured tree, the
    headline's records naming that tree."""
    tree = commit(repo, 'bpf_ksym/ksym.rs', '// v1\n', 'bpf_ksym: the registry')[:7]
    for name in ('bench', 'query'):
        data = json.loads(read(repo, 'docs/bench/%s.json' % name))
        data['info']['tree'] = tree + ('+' if name == 'query' else '')
        write(repo, 'docs/bench/%s.json' % name, json.dumps(data))
    bench_docs.render_all()
    commit(repo, 'docs/bench/.keep', '', 'docs: the headline of %s' % tree)
    return tree


def test_headline_of_the_current_kernel_code_passes(repo, history):
    assert 'tree `%s`' % history in read(repo, 'README.md')
    # Changes outside the kernel code change no figure.
    commit(repo, 'scripts/bench.py', '# new\n', 'scripts: a new option')
    commit(repo, 'docs/testing.md', read(repo, 'docs/testing.md') + '\nMore.\n', 'docs: more')
    assert bench_docs.check() == 0


@pytest.mark.parametrize('path', ['bpf_ksym/ksym.rs', 'kallsyms_query/query.rs',
                                  'kallsyms_iter/line.rs', 'rust/kernel/rbtree_latch.rs',
                                  'include/linux/bpf_ksym.h', 'patches/bpf-core.patch',
                                  'config/bpf_ksym.config', 'Kconfig',
                                  'tools/bpf/bpf_ksym_bench/bench_registry.c',
                                  'tools/blazesym/patches/0001-a.patch'])
def test_headline_older_than_the_kernel_code_fails(repo, history, capsys, path):
    change = commit(repo, path, '// v2\n', 'bpf_ksym: a faster walk')
    assert bench_docs.check() == 1
    err = capsys.readouterr().err
    assert 'tree `%s` predate 1 change to the kernel code' % history in err, err
    assert 'the earliest: %s bpf_ksym: a faster walk' % change[:7] in err, err


def test_the_message_names_the_earliest_changes(repo, history, capsys):
    changes = [commit(repo, 'bpf_ksym/ksym.rs', '// v%d\n' % i, 'bpf_ksym: change %d' % i)
               for i in range(4)]
    assert bench_docs.check() == 1
    err = capsys.readouterr().err
    assert 'predate 4 changes to the kernel code' in err
    assert 'the earliest 3: %s bpf_ksym: change 0; %s bpf_ksym: change 1; %s bpf_ksym: change 2.' \
        % tuple(c[:7] for c in changes[:3]) in err, err


def test_an_uncommitted_kernel_change_is_not_yet_a_change(repo, history):
    write(repo, 'bpf_ksym/ksym.rs', '// being edited\n')
    assert bench_docs.check() == 0


@pytest.mark.parametrize('note', [
    'The figures of tree `{tree}` predate {hash} and the changes after it.',
    'Not measured again since: the full read (tree `{tree}`) predates {hash} ("{subject}").',
    'Measured on `{tree}`, so they predate "{subject}".',
    # One clause per tree.
    'The reads (tree `{tree}`) predate {hash}; the other figures are new.',
    # The change in backquotes too.
    'The figures of `{tree}` predate `{hash}`.',
])
def test_a_note_naming_the_change_the_figures_predate_passes(repo, history, note):
    change = commit(repo, 'bpf_ksym/ksym.rs', '// v2\n', 'bpf_ksym: a faster walk')
    append(repo, 'README.md', '\n' + note.format(tree=history, hash=change[:7],
                                                 subject='bpf_ksym: a faster walk') + '\n')
    assert bench_docs.check() == 0


@pytest.mark.parametrize('note', [
    # Says nothing of a change.
    'The figures of tree `{tree}` are old.',
    # Names no change to the kernel code after the tree: the docs commit, the tree itself.
    'The figures of tree `{tree}` predate {docs}.',
    'The figures of tree `{tree}` predate `{tree}`.',
    # Names the change, but not the tree.
    'Some figures predate {hash}.',
    # The tree and the change in two sentences.
    'The figures of tree `{tree}` are from a run. They predate {hash}.',
])
def test_a_note_that_names_no_later_change_fails(repo, history, capsys, note):
    change = commit(repo, 'bpf_ksym/ksym.rs', '// v2\n', 'bpf_ksym: a faster walk')
    docs = git(repo, 'rev-parse', 'HEAD~1')
    append(repo, 'README.md', '\n' + note.format(tree=history, hash=change[:7],
                                                 docs=docs[:7]) + '\n')
    assert bench_docs.check() == 1
    assert 'predate 1 change to the kernel code' in capsys.readouterr().err


@pytest.mark.parametrize('note', ['The figures of tree `{tree}` predate {hash}.',
                                  'Predates {hash}: the figures of tree `{tree}`.'])
def test_a_note_about_a_tree_measured_again_fails(repo, history, capsys, note):
    """A note outlives its figures: once the headline names a new tree, it must go."""
    change = commit(repo, 'bpf_ksym/ksym.rs', '// v2\n', 'bpf_ksym: a faster walk')
    append(repo, 'README.md', '\n' + note.format(tree=history, hash=change[:7]) + '\n')
    assert bench_docs.check() == 0
    for name in ('bench', 'query'):
        data = json.loads(read(repo, 'docs/bench/%s.json' % name))
        data['info']['tree'] = change[:7]
        write(repo, 'docs/bench/%s.json' % name, json.dumps(data))
    bench_docs.render_all()
    assert bench_docs.check() == 1
    assert ('a note says what the figures of tree `%s` predate, but no headline names that tree'
            % history) in capsys.readouterr().err


def test_a_tree_unknown_to_the_history_fails(repo, history, capsys):
    data = json.loads(read(repo, 'docs/bench/bench.json'))
    data['info']['tree'] = 'abcdef0'
    write(repo, 'docs/bench/bench.json', json.dumps(data))
    bench_docs.render_all()
    assert bench_docs.check() == 1
    assert "tree `abcdef0`: no commit of HEAD's history" in capsys.readouterr().err


def test_a_tree_rebased_away_fails(repo, history, capsys):
    """A commit the repository still holds but HEAD's history does not (a rebase rewrote
    it): a clone would not have it."""
    git(repo, 'reset', '-q', '--soft', 'HEAD~2')
    git(repo, 'commit', '-q', '-m', 'bpf_ksym: the registry and its headline, squashed')
    git(repo, 'rev-parse', '--verify', history + '^{commit}')
    assert bench_docs.check() == 1
    assert "tree `%s`: no commit of HEAD's history (rebased away?)" % history \
        in capsys.readouterr().err


def test_a_shallow_clone_says_it_cannot_tell(repo, history, tmp_path, capsys, monkeypatch):
    commit(repo, 'scripts/x.sh', '# x\n', 'scripts: x')
    shallow = tmp_path / 'shallow'
    subprocess.run(['git', 'clone', '-q', '--depth', '1', 'file://%s' % repo, str(shallow)],
                   check=True)
    point_at(monkeypatch, shallow)
    assert bench_docs.check() == 1
    assert 'cannot tell what changed since, as this is a shallow clone (git fetch ' \
        '--unshallow): make lint needs a full clone' in capsys.readouterr().err


def test_outside_a_git_checkout_the_check_says_it_cannot_run(repo, capsys):
    """The fake repository without its history (a tarball of the repository): its headline
    names abc1234, which nothing can place."""
    subprocess.run(['rm', '-rf', str(repo / '.git')], check=True)
    assert 'tree `abc1234`' in read(repo, 'README.md')
    assert bench_docs.check() == 1
    assert 'cannot tell what changed since, as this is not a git checkout' in \
        capsys.readouterr().err


# This repository: read as it is, then a clone of it with a figure stated twice and a stale
# headline injected.

def test_this_repository_states_each_figure_once():
    assert doc_figures.duplicates(ROOT, bench_docs.blocks) == []


def test_this_repository_says_what_its_headline_predates():
    assert doc_figures.stale_trees(ROOT, bench_docs.blocks) == []
    assert doc_figures.orphan_notes(ROOT, bench_docs.blocks) == []


@pytest.fixture
def copy_of_this_repo(tmp_path, monkeypatch):
    return point_at(monkeypatch, clone_of_this_repo(tmp_path / 'clone'))


def test_this_repository_with_a_figure_stated_twice_fails(copy_of_this_repo, capsys):
    """CI's time from docs/testing.md typed into the README again."""
    assert bench_docs.check() == 0
    testing = read(copy_of_this_repo, 'docs/testing.md')
    assert '2,502 s' in testing
    append(copy_of_this_repo, 'README.md', '\nCI from a fresh clone takes 2,502 s.\n')
    assert bench_docs.check() == 1
    err = capsys.readouterr().err
    assert '2,502 s stated in 2 places: README.md:' in err and 'docs/testing.md:' in err


def test_this_repository_without_its_note_has_a_stale_headline(copy_of_this_repo, capsys):
    readme = read(copy_of_this_repo, 'README.md')
    start = readme.index('Not measured again since')
    end = readme.index('\n\n', start)
    write(copy_of_this_repo, 'README.md', readme[:start] + readme[end + 2:])
    assert bench_docs.check() == 1
    assert 'figures from tree `44d8f11` predate' in capsys.readouterr().err


def headline_trees(readme):
    start = readme.index('<!-- generated: headline')
    block = readme[start:readme.index('<!-- end generated: headline -->')]
    return doc_figures.TREE.findall(block)


def test_this_repository_with_a_new_kernel_change_keeps_its_note(copy_of_this_repo):
    """The note names a change after each tree it speaks of: one more change does not make
    it false. A tree measured on the latest kernel code has no note, so the change makes
    that tree stale, and only it. A headline re-measured on the new tree needs no note."""
    readme = read(copy_of_this_repo, 'README.md')
    start = readme.index('Not measured again since')
    note = readme[start:readme.index('\n\n', start)]
    trees = set(headline_trees(readme))
    noted = {t for t in trees if '`%s' % t in note}
    root = str(copy_of_this_repo)
    assert doc_figures.stale_trees(root, bench_docs.blocks) == []
    commit(copy_of_this_repo, 'bpf_ksym/new.rs', '// new\n', 'bpf_ksym: one more change')
    stale = doc_figures.stale_trees(root, bench_docs.blocks)
    assert len(stale) == len(trees - noted), stale
    assert all(any('`%s`' % t in e for t in trees - noted) for e in stale), stale
    head = git(copy_of_this_repo, 'rev-parse', '--short=7', 'HEAD')
    # Re-measured: the block names the new tree; the note, below the block, is left as it was.
    cut = readme.index('<!-- end generated: headline -->')
    block = readme[:cut]
    for old in trees:
        block = block.replace('tree `%s' % old, 'tree `%s' % head)
    readme = block + readme[cut:]
    write(copy_of_this_repo, 'README.md', readme)
    # The block no longer matches its records, but no tree is stale; the note now speaks
    # of trees the headline no longer names, and must go.
    assert doc_figures.stale_trees(root, bench_docs.blocks) == []
    errors = doc_figures.orphan_notes(root, bench_docs.blocks)
    assert len(errors) == len(noted) and all('remove the note' in e for e in errors), errors
    start = readme.index('Not measured again since')
    end = readme.index('\n\n', start) + 2
    write(copy_of_this_repo, 'README.md', readme[:start] + readme[end:])
    assert doc_figures.orphan_notes(root, bench_docs.blocks) == []
