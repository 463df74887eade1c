# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/bench_docs.py (make lint runs them).

Each test builds a small fake repository (records in docs/bench/, a README.md and a
docs/benchmarks.md with generated blocks, a git history whose one commit the records name)
and checks what `check` reports; the last ones run it on a clone of this repository with
its working tree's documents, as they are and with a figure copied into the text.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import bench_docs  # noqa: E402
import doc_figures  # noqa: E402

QUERY = {'info': {'mode': 'tcg', 'runs': 11, 'tree': 'abc1234', 'date': '2026-12-03'},
         'records': [
             {'workload': 'profile', 'n': 50000, 'unit': 'ms', 'text': 338.185,
              'ioctl': 8.344, 'batch': 3.035},
             {'workload': 'blazesym_first', 'n': 1, 'unit': 'ms', 'blazesym_text': 129.724,
              'blazesym_kq': 0.625},
             {'workload': 'blazesym_rss_kib', 'n': 2000, 'unit': 'KiB', 'blazesym_text': 6696,
              'blazesym_kq': 1768}]}


def block(name, content=''):
    return ('<!-- generated: %s (scripts/bench_docs.py from docs/bench/); do not edit -->\n'
            '%s<!-- end generated: %s -->\n' % (name, content, name))


BENCH = {'info': {'runs': 3, 'tree': 'abc1234', 'date': '2026-12-02', 'host': 'a host',
                  'kernel': '7.3.4', 'kernel_compiler': 'clang', 'rustc': 'rustc 1.95.0',
                  'qemu': 'QEMU 7.2'},
         'records': [
             {'workload': w, 'n': n, 'mode': mode, 'c': c, 'rust': rust, 'spread': 0.15,
              'unit': 'ms'}
             for w, n, c, rust in (('kallsyms_read', 1000, 420.0, 160.0),
                                   ('kallsyms_read', 10000, 4271.0, 88.8),
                                   ('kallsyms_read_core', 0, 148.2, 76.38))
             for mode in ('icount', 'tcg')]}


def git(root, *args):
    return subprocess.run(['git', '-C', str(root)] + list(args), check=True,
                          capture_output=True, text=True).stdout.strip()


def as_history(root):
    """Make root a git repository of one commit, tagged as the tree the fake records name
    (abc1234): a headline measured on the kernel code as it is."""
    git(root, 'init', '-q')
    git(root, 'config', 'user.name', 'test')
    git(root, 'config', 'user.email', 'test@example.com')
    git(root, 'add', '-A')
    git(root, 'commit', '-q', '--allow-empty', '-m', 'the fake repository')
    git(root, 'tag', 'abc1234')


def clone_of_this_repo(clone):
    """A clone of this repository's history (file://, so that no object outside it comes
    along), with its working tree's documents, records and Makefile copied over it."""
    subprocess.run(['git', 'clone', '-q', 'file://' + ROOT, str(clone)], check=True)
    git(clone, 'config', 'user.name', 'test')
    git(clone, 'config', 'user.email', 'test@example.com')
    for path in doc_figures.documents(ROOT) + ['docs/bench', 'Makefile']:
        src, dst = os.path.join(ROOT, path), os.path.join(str(clone), path)
        if os.path.isdir(src):
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(src, dst)
        elif os.path.exists(src):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
    return clone


def point_at(monkeypatch, root):
    """Let bench_docs read and write root's documents and records."""
    monkeypatch.setattr(bench_docs, 'ROOT', str(root))
    monkeypatch.setattr(bench_docs, 'DATA', str(root / 'docs' / 'bench'))
    return root


def fake_repo(monkeypatch, root):
    """root, written, as the repository bench_docs checks: rendered, then committed."""
    point_at(monkeypatch, root)
    bench_docs.render_all()
    as_history(root)
    return root


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A fake repository with records and both documents, rendered."""
    os.makedirs(tmp_path / 'docs' / 'bench')
    for name, data in (('query', QUERY), ('bench', BENCH)):
        with open(tmp_path / 'docs' / 'bench' / (name + '.json'), 'w') as f:
            json.dump(data, f)
    (tmp_path / 'README.md').write_text('# x\n\n' + block('headline') + '\nAbout 2x.\n')
    (tmp_path / 'docs' / 'benchmarks.md').write_text(
        'From 1 to 30,000 symbols, N >= 10,000.\n' + block('bench') + block('bench-arm64') +
        block('query') +
        '\nText.\n' + block('query-blazesym') + block('query-churn') + block('query-icount') +
        block('query-blazesym-icount') + block('query-steady-icount') + block('query-steady'))
    os.makedirs(tmp_path / 'tools' / 'blazesym')
    (tmp_path / 'tools' / 'blazesym' / 'cover-letter.md').write_text(
        'Figures.\n' + block('query-blazesym-icount') + block('query-steady-icount'))
    os.makedirs(tmp_path / 'Documentation' / 'bpf')
    (tmp_path / 'Documentation' / 'bpf' / 'bpf_ksym.rst').write_text('Reads got faster.\n')
    return fake_repo(monkeypatch, tmp_path)


def test_rendered_documents_pass(repo):
    assert bench_docs.check() == 0
    readme = (repo / 'README.md').read_text()
    doc = (repo / 'docs' / 'benchmarks.md').read_text()
    # The records' figures, as the tables print them.
    assert '| 129.7 ms | 0.625 ms | 208x | met: 100x |' in doc
    assert '6,696 KiB' in doc
    assert '| 4,271 ms (mainline C registry) | 88.8 ms (Rust registry) | 48.1x |' in readme
    assert 'the full read from `make bench` (2026-12-02, tree `abc1234`)' in readme
    # make bench's own table: absolute figures at the second largest N.
    assert '| kallsyms_read | tcg | ms | 420 | 160 | **1/2.6** (15%) | **1/48** (15%) |' in doc
    assert 'run `make bench-query QEMU_EXTRA=' in doc


def test_churn_rows_render_with_their_goals(repo):
    # No churn rows in the records yet: the block says how to make them.
    assert 'No records in `docs/bench/query.json` yet: run `make bench-query`' in \
        bench_docs.render('query-churn')
    with open(repo / 'docs' / 'bench' / 'query.json') as f:
        data = json.load(f)
    data['records'] += [
        {'workload': 'churn_single', 'n': 5000, 'unit': 'us', 'idle_p99': 10.0,
         'idle_max': 40.0, 'churn_p99': 25.0, 'churn_max': 150.0, 'churned': 12345},
        {'workload': 'churn_batch', 'n': 100, 'unit': 'us', 'idle_p99': 1000.0,
         'idle_max': 1200.0, 'churn_p99': 4000.0, 'churn_max': 9000.0, 'churned': 12345}]
    with open(repo / 'docs' / 'bench' / 'query.json', 'w') as f:
        json.dump(data, f)
    out = bench_docs.render('query-churn')
    # Single: 2.5x and 15x idle p99, within 3x and 20x; batch: 4x, past 3x.
    assert '| 10 us | 40 us | 25 us | 150 us | 2.50x | 15.0x | p99 met: 3x, max met: 20x |' in out
    assert ('| 1,000 us | 1,200 us | 4,000 us | 9,000 us | 4.00x | 9.00x | '
            'p99 short of 3x, max met: 20x |') in out
    assert '12,345 programs loaded and closed' in out


def test_headline_blazesym_row_is_in_instructions_with_tcg_beside(repo):
    # TCG's figure alone while there is no icount run.
    assert '| 129.7 ms (0.2.7 as published) | 0.625 ms (with `tools/blazesym`) | 208x |' in \
        bench_docs.render('headline')
    icount = {'info': {'mode': 'icount', 'runs': 11, 'tree': 'abc1234', 'date': '2026-12-05'},
              'records': [{'workload': 'blazesym_first', 'n': 1, 'unit': 'ms',
                           'blazesym_text': 161.3, 'blazesym_kq': 0.136}]}
    (repo / 'docs' / 'bench' / 'query-icount.json').write_text(json.dumps(icount))
    out = bench_docs.render('headline')
    assert ('| 161.3 M instructions (0.2.7 as published; TCG 129.7 ms) | 136 k instructions '
            '(with `tools/blazesym`; TCG 0.625 ms) | 1,186x (TCG 208x) |') in out
    assert 'counts the guest\'s instructions instead' in out


def test_steady_rows_render_with_their_goals(repo):
    assert 'No blazesym_steady records in `docs/bench/query.json` yet' in \
        bench_docs.render('query-steady')
    with open(repo / 'docs' / 'bench' / 'query.json') as f:
        data = json.load(f)
    data['info']['mode'] = 'icount'
    fig = {'ioctl_cached': 1, 'blazesym_text': 4, 'blazesym_kq': 2}
    data['records'] += [
        {'workload': 'blazesym_steady', 'n': 10000, 'unit': 'us', 'ioctl_cached': 3.0,
         'blazesym_text': 40.0, 'blazesym_kq': 7.0},
        dict(fig, workload='blazesym_steady_syscalls_hit_max', n=8000, unit='calls'),
        dict(fig, workload='blazesym_steady_syscalls_miss_max', n=2000, unit='calls'),
        {'workload': 'blazesym_bpf_gone', 'n': 1000, 'unit': 'us', 'blazesym_text': 2000.0,
         'blazesym_kq': 1.5},
        {'workload': 'blazesym_late_named', 'n': 1, 'unit': 'calls', 'blazesym_text': 0,
         'blazesym_kq': 0}]
    with open(repo / 'docs' / 'bench' / 'query.json', 'w') as f:
        json.dump(data, f)
    out = bench_docs.render('query-steady')
    # 7 us against 3 us: past 2x; in icount, a us of guest time is a thousand instructions.
    assert ('| 3 k instructions | 40 k instructions | 7 k instructions | 2.33x | 5.71x | '
            'not met: within 2x |') in out
    # A hit's 2 calls break its goal of 1; a miss's 2 meet theirs.
    assert '| system calls of a hit, at most | 1 | 4 | 2 | 2.00x |  | not met: at most 1 |' in out
    assert '| system calls of a miss, at most | 1 | 4 | 2 | 2.00x |  | met: at most 2 |' in out
    # 2,000 us against 1.5 us: 1,333x, past the 1,000x the gone address is held to.
    assert '| 2 M instructions | 1.5 k instructions |  | 1,333x | met: 1000x |' in out
    assert '| named right (1) or not (0) |  | 0 | 0 |  |  | not met |' in out


def test_block_edited_by_hand_fails(repo, capsys):
    path = repo / 'docs' / 'benchmarks.md'
    path.write_text(path.read_text().replace('0.625 ms', '0.525 ms'))
    assert bench_docs.check() == 1
    assert 'block query-blazesym is not what docs/bench/ renders' in capsys.readouterr().err


def test_block_removed_fails(repo, capsys):
    path = repo / 'docs' / 'benchmarks.md'
    text = path.read_text()
    start = text.index('<!-- generated: query-blazesym')
    end = text.index('<!-- end generated: query-blazesym -->\n')
    path.write_text(text[:start] + text[end + len('<!-- end generated: query-blazesym -->\n'):])
    assert bench_docs.check() == 1
    assert 'the generated block query-blazesym is missing' in capsys.readouterr().err


def test_records_changed_without_rendering_fails(repo, capsys):
    data = json.loads((repo / 'docs' / 'bench' / 'query.json').read_text())
    data['records'][1]['blazesym_kq'] = 0.7
    (repo / 'docs' / 'bench' / 'query.json').write_text(json.dumps(data))
    assert bench_docs.check() == 1
    assert 'query-blazesym' in capsys.readouterr().err


@pytest.mark.parametrize('copied', ['208x', 'a 1/208 of', '129.7 ms', '6,696 KiB', '3.79x',
                                    '338 ms', 'about 130 ms', '48.1x', '4,271 ms', '88.8'])
def test_copied_figure_fails(repo, capsys, copied):
    """As typed, or rounded ("338 ms" for 338.2) on a line that names the row's workload."""
    doc = repo / 'docs' / 'benchmarks.md'
    lines = doc.read_text().splitlines(keepends=True)
    doc.write_text(''.join(lines[:1] + ['The profile or blazesym_first is %s faster.\n' % copied]
                           + lines[1:]))
    assert bench_docs.check() == 1
    # The line it was typed on.
    assert ('docs/benchmarks.md:2: ' in capsys.readouterr().err)


def test_bare_number_is_not_a_ratio(repo):
    """A version ("rustc 2.30") is not a table's 2.30x: prose writes ratios with their x."""
    (repo / 'README.md').write_text((repo / 'README.md').read_text() + 'Built by rustc %s.\n'
                                    % bench_docs.ratio(338.185, 3.035).rstrip('x'))
    assert bench_docs.check() == 0


@pytest.mark.parametrize('doc', ['docs/testing.md', 'HACKING.md',
                                 'Documentation/userspace-api/kallsyms_query.rst'])
def test_copied_figure_in_any_document_fails(repo, capsys, doc):
    path = repo / doc
    os.makedirs(path.parent, exist_ok=True)
    path.write_text('# x\n\nThe full read is 48.1x faster.\n')
    assert bench_docs.check() == 1
    assert '%s:3: 48.1 copied from a generated table' % doc in capsys.readouterr().err


@pytest.mark.parametrize('prose', ['Symbolizing takes 338 ms.', 'A first address: about 130 ms.'])
def test_a_rounded_figure_of_another_workload_passes(repo, prose):
    """The same figure rounded, on a line that does not name the row's workload: as likely
    a coincidence as a copy."""
    doc = repo / 'docs' / 'benchmarks.md'
    doc.write_text(doc.read_text() + '\n%s\n' % prose)
    assert bench_docs.check() == 0


def test_copied_figure_in_the_kernel_page_fails(repo, capsys):
    rst = repo / 'Documentation' / 'bpf' / 'bpf_ksym.rst'
    rst.write_text(rst.read_text() + 'A read takes 88.8 ms.\n')
    assert bench_docs.check() == 1
    assert 'Documentation/bpf/bpf_ksym.rst:2: 88.8' in capsys.readouterr().err


@pytest.mark.parametrize('prose', ['about 2x faster', 'at 2,000 addresses', 'N = 1,000',
                                   '11 runs', 'version 0.2.7', 'a goal of 100x', 'spreads of 15%',
                                   'built in 18s', 'from 1 to 30,000', 'N >= 10,000'])
def test_words_and_sizes_pass(repo, prose):
    doc = repo / 'docs' / 'benchmarks.md'
    doc.write_text(doc.read_text() + '\n%s\n' % prose)
    assert bench_docs.check() == 0


def test_missing_end_marker_fails(repo, capsys):
    doc = repo / 'docs' / 'benchmarks.md'
    doc.write_text(doc.read_text().replace('<!-- end generated: query -->', ''))
    assert bench_docs.check() == 1
    assert 'has no' in capsys.readouterr().err


def test_missing_records_say_how_to_make_them(repo):
    os.remove(repo / 'docs' / 'bench' / 'query.json')
    bench_docs.render_all()
    assert 'run `make bench` and `make bench-query`' in (repo / 'README.md').read_text()
    assert 'run `make bench-query`' in (repo / 'docs' / 'benchmarks.md').read_text()
    assert bench_docs.check() == 0


@pytest.fixture
def copy_of_this_repo(tmp_path, monkeypatch):
    return point_at(monkeypatch, clone_of_this_repo(tmp_path / 'clone'))


def test_this_repository_passes(copy_of_this_repo):
    assert bench_docs.check() == 0


def test_this_repository_with_a_copied_figure_fails(copy_of_this_repo, capsys):
    """A figure of the blazesym table, typed again into the README's prose, is caught."""
    records = copy_of_this_repo / 'docs' / 'bench' / 'query.json'
    if not records.exists():
        pytest.skip('no docs/bench/query.json: make bench-query writes it')
    q = json.loads(records.read_text())
    first = {r['workload']: r for r in q['records']}['blazesym_first']
    copied = bench_docs.ratio(first['blazesym_text'], first['blazesym_kq'])
    readme = copy_of_this_repo / 'README.md'
    readme.write_text(readme.read_text() + '\nblazesym starts %s faster.\n' % copied)
    assert bench_docs.check() == 1
    assert 'README.md:' in capsys.readouterr().err


def test_arm64_records_missing_say_how_to_make_them(repo):
    doc = (repo / 'docs' / 'benchmarks.md').read_text()
    assert 'No records in `docs/bench/bench-arm64.json` yet: run `make bench ARCH=arm64`.' in doc
    assert bench_docs.check() == 0


def test_arm64_records_render_their_own_table(repo):
    arm = dict(BENCH, info=dict(BENCH['info'], kernel='7.3.4-arm64'))
    with open(repo / 'docs' / 'bench' / 'bench-arm64.json', 'w') as f:
        json.dump(arm, f)
    bench_docs.render_all()
    doc = (repo / 'docs' / 'benchmarks.md').read_text()
    start = doc.index('<!-- generated: bench-arm64')
    arm_block = doc[start:doc.index('<!-- end generated: bench-arm64 -->')]
    assert 'kernel 7.3.4-arm64' in arm_block and '| kallsyms_read | tcg |' in arm_block
    assert bench_docs.check() == 0


def test_merged_run_names_each_modes_date_and_tree():
    # make bench BENCH_MODES=icount BENCH_MERGE=1 keeps the last run's tcg records: the
    # documentation must not give them the new run's date and tree.
    info = {'date': '2026-12-04', 'tree': 'new',
            'modes': {'icount': {'date': '2026-12-04', 'tree': 'new'},
                      'tcg': {'date': '2026-12-03', 'tree': 'old'}}}
    assert bench_docs.provenance(info, ['tcg']) == '2026-12-03, tree `old`'
    assert bench_docs.provenance(info, ['icount', 'tcg']) == \
        'icount 2026-12-04, tree `new`, tcg 2026-12-03, tree `old`'
    # A run without per-mode records (older JSON) is one date and tree.
    assert bench_docs.provenance({'date': 'd', 'tree': 't'}, ['icount', 'tcg']) == 'd, tree `t`'


def test_bench_table_renders_without_bench_py(repo):
    # bench.py imports bench_docs to publish a run; bench_docs renders bench.py's table
    # through bench_markdown, so neither imports the other back, and bench.py's settings
    # (ARCH, BENCH_N), which it reads as it is imported, play no part in the documents.
    code = ('import sys; sys.path.insert(0, %r); import bench_docs; bench_docs.DATA = %r; '
            'print("| kallsyms_read | tcg |" in bench_docs.render("bench"), '
            '"bench" in sys.modules)' % (os.path.dirname(HERE), str(repo / 'docs' / 'bench')))
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                       env=dict(os.environ, ARCH='riscv', BENCH_N='not a number'))
    assert (r.returncode, r.stdout, r.stderr) == (0, 'True False\n', '')
