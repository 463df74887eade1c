"""Unit tests of scripts/check-paths.py (make lint runs them).

Each test writes documents into a small fake repository (and, where it matters, a fake
kernel tree) and checks what check-paths.py reports; the last ones run it on this
repository, as it is and with a stale path added to a copy of README.md.
"""
import importlib.util
import os
import shutil

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
_spec = importlib.util.spec_from_file_location(
    'check_paths', os.path.join(ROOT, 'scripts', 'check-paths.py'))
check_paths = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_paths)

# The pristine kernel tree make lint passes, if this machine has it (lib.sh's CACHE).
KERNEL = os.path.join(os.environ.get('BPF_KSYM_CACHE') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'bpf_ksym'),
    'linux-' + os.environ.get('KVER', '7.3'))


def touch(base, *paths):
    for p in paths:
        full = os.path.join(str(base), p)
        if p.endswith('/'):
            os.makedirs(full, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(full), exist_ok=True)
            open(full, 'a').close()


@pytest.fixture
def repo(tmp_path):
    """A repository and a kernel tree with the files the documents below may name."""
    root, kernel = tmp_path / 'repo', tmp_path / 'linux'
    touch(root, 'scripts/lint.sh', 'scripts/tests/', 'bpf_ksym/ksym.rs', 'tools/x/check/',
          'tools/x/examples/demo.rs', 'include/uapi/linux/q.h',
          'tools/testing/selftests/bpf_ksym/ex.c', 'Documentation/bpf/bpf_ksym_bench.svg',
          'Documentation/userspace-api/', 'tools/bench/bench_query.c')
    touch(kernel, 'kernel/bpf/core.c', 'include/linux/bpf.h', 'scripts/kallsyms.c')
    return root, kernel


def run(capsys, root, kernel, docs):
    """Write {path: text} into root, run main(); return (exit status, output lines)."""
    for path, text in docs.items():
        full = os.path.join(str(root), path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w') as f:
            f.write(text)
    argv = ['--root', str(root)] + (['--kernel', str(kernel)] if kernel else [])
    rc = check_paths.main(argv)
    return rc, capsys.readouterr().out.splitlines()


def test_existing_paths_pass(repo, capsys):
    root, kernel = repo
    rc, out = run(capsys, root, kernel, {'README.md': (
        'See `scripts/lint.sh`, `scripts/tests/`, `bpf_ksym/ksym.rs` and\n'
        '[the page](Documentation/bpf/bpf_ksym_bench.svg#top), [web](https://x.org/a/b),\n'
        '[anchor](#what-is-where); upstream `kernel/bpf/core.c`, `include/linux/bpf.h`;\n'
        'built `scripts/kallsyms` and `tools/bench/bench_query`; generated\n'
        '`build/bench/query.json` and `build/kernel-rust`.\n')})
    assert (rc, out) == (0, ['paths: ok (1 documents)'])


def test_stale_code_span_and_link(repo, capsys):
    root, kernel = repo
    rc, out = run(capsys, root, kernel, {'README.md': (
        'Intro.\n\n`scripts/lint.sh` and `scripts/gone.sh`\n'
        'and [the header](include/uapi/linux/gone.h#struct), `kernel/bpf/gone.c`.\n')})
    assert rc == 1
    assert out == ['README.md:3: scripts/gone.sh does not exist',
                   'README.md:4: include/uapi/linux/gone.h does not exist',
                   'README.md:4: kernel/bpf/gone.c does not exist']


def test_not_paths(repo, capsys):
    """Guest paths, placeholders, globs, iterator and test names, other projects' files,
    ../shared and fenced code are not checked."""
    root, kernel = repo
    rc, out = run(capsys, root, kernel, {'README.md': (
        '`/proc/kallsyms` `/kselftest/bpf_ksym` `~/.cache/bpf_ksym` `$BPF_KSYM_BUILD/x`\n'
        '`patches/<patch>` `scripts/series/NN-*` `BPF_KSYM_BUILD=~/x/y` `iter/ksym`\n'
        '`stream_success/stream_arena_callback_fault` `4/4` `src/kernel/kquery.rs`\n'
        '`symbol+0xoff/0xsize [owner]` `../shared/seeds/x` [s](../shared/seeds/y)\n'
        '[mail](mailto:a@b.c) `-C tools/x`\n'
        '```sh\n`scripts/not-checked.sh`\n```\n')})
    assert (rc, out) == (0, ['paths: ok (1 documents)'])


def test_subdirectory_readme(repo, capsys):
    """Links resolve against the document's directory; code spans also may."""
    root, kernel = repo
    rc, out = run(capsys, root, kernel, {'tools/x/README.md': (
        '`check/` and [`examples/demo.rs`](examples/demo.rs), `examples/gone.rs`,\n'
        '[root file](../../scripts/lint.sh), [stale](../../scripts/gone.sh)\n')})
    assert rc == 1
    assert out == ['tools/x/README.md:1: examples/gone.rs does not exist',
                   'tools/x/README.md:2: ../../scripts/gone.sh does not exist']


def test_rst(repo, capsys):
    root, kernel = repo
    rst = 'Documentation/userspace-api/kallsyms_query.rst'
    rc, out = run(capsys, root, kernel, {rst: (
        '.. SPDX-License-Identifier: GPL-2.0\n\n'
        'See ``include/uapi/linux/q.h``, ``bpf/bpf_ksym_bench.svg`` (from Documentation/),\n'
        '``Documentation/bpf/bpf_ksym_bench.svg``, ``<linux/q.h>``, ``name+off/size [m]``.\n\n'
        '.. kernel-doc:: include/uapi/linux/q.h\n   :doc: intro\n\n'
        '.. literalinclude:: ../../tools/testing/selftests/bpf_ksym/ex.c\n\n'
        '.. literalinclude:: ../../tools/testing/selftests/bpf_ksym/gone.c\n\n'
        '.. kernel-doc:: include/uapi/linux/gone.h\n\n'
        'And ``bpf_ksym/gone.rs``.\n')})
    assert rc == 1
    assert out == [rst + ':11: ../../tools/testing/selftests/bpf_ksym/gone.c does not exist',
                   rst + ':13: include/uapi/linux/gone.h does not exist',
                   rst + ':15: bpf_ksym/gone.rs does not exist']


def test_without_kernel_tree(repo, capsys):
    """Paths the repository lacks are not checked, and do not fail; its own still are."""
    root, _ = repo
    doc = {'README.md': '`include/linux/bpf.h` and `scripts/lint.sh`\n'}
    rc, out = run(capsys, root, str(root / 'missing'), doc)
    assert rc == 0
    assert out[0] == 'README.md:1: include/linux/bpf.h not checked (no kernel tree at %s)' % (
        root / 'missing')
    rc, out = run(capsys, root, None, {'README.md': '`scripts/lint.sh` and `scripts/gone.sh`\n'})
    assert (rc, out) == (0, ['README.md:1: scripts/gone.sh not checked (no kernel tree at None)',
                             'paths: ok (1 documents; without the kernel tree, 1 not checked)'])


def real_tree(tmp_path):
    """A copy of this repository's documents (and the files they name, by symlink)."""
    copy = tmp_path / 'main'
    copy.mkdir()
    for name in os.listdir(ROOT):
        if name not in ('README.md', '.git'):
            os.symlink(os.path.join(ROOT, name), str(copy / name))
    shutil.copy(os.path.join(ROOT, 'README.md'), str(copy / 'README.md'))
    return copy


def test_this_repository(capsys):
    kernel = KERNEL if os.path.isdir(KERNEL) else None
    rc = check_paths.main(['--root', ROOT] + (['--kernel', kernel] if kernel else []))
    out = capsys.readouterr().out
    assert rc == 0, out


def test_this_repository_stale_path(tmp_path, capsys):
    copy = real_tree(tmp_path)
    with open(str(copy / 'README.md'), 'a') as f:
        f.write('\nRun `scripts/no-such-script.sh` first.\n')
    with open(os.path.join(ROOT, 'README.md')) as f:
        line = len(f.read().split('\n')) + 1
    kernel = KERNEL if os.path.isdir(KERNEL) else str(tmp_path / 'empty')
    os.makedirs(kernel, exist_ok=True)
    rc = check_paths.main(['--root', str(copy), '--kernel', kernel, 'README.md'])
    out = capsys.readouterr().out.splitlines()
    assert rc == 1
    assert 'README.md:%d: scripts/no-such-script.sh does not exist' % line in out
