# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/prepare-tree.sh's guard over edits made in the prepared tree.

A prepared tree (BPF_KSYM_BUILD in a temporary directory) is made from this machine's
pristine kernel source, then edited: preparing it again must stop and list each edit it
would overwrite or remove, whatever the locale, until BPF_KSYM_DISCARD_EDITS=1 drops them.
Skipped where the pristine source is not there yet (make source fetches it; make lint does).
"""
import hashlib
import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CACHE = os.environ.get('BPF_KSYM_CACHE') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'bpf_ksym')
PRISTINE = os.path.join(CACHE, 'linux-' + os.environ.get('KVER', '7.3'))

pytestmark = pytest.mark.skipif(not os.path.exists(os.path.join(PRISTINE, '.complete')),
                                reason='no pristine kernel source (make source)')


def prepare(build, **env):
    return subprocess.run(['bash', os.path.join(ROOT, 'scripts/prepare-tree.sh')],
                          env=dict(os.environ, BPF_KSYM_BUILD=str(build), **env),
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope='module')
def tree(tmp_path_factory):
    build = tmp_path_factory.mktemp('build')
    r = prepare(build)
    assert r.returncode == 0, r.stderr
    yield build
    shutil.rmtree(build, ignore_errors=True)


def append(path, text='// edited\n'):
    with open(path, 'a') as f:
        f.write(text)


def test_edits_stop_the_next_run_and_say_how_to_keep_them(tree):
    src = tree / 'src'
    append(src / 'kernel/bpf/core.c')
    append(src / 'kernel/kallsyms_query/pass.rs')
    # In any locale: sha256sum translates its "FAILED".
    r = prepare(tree, LC_ALL='fr_FR.UTF-8', LANGUAGE='fr')
    assert r.returncode == 1
    assert 'kernel/bpf/core.c  (changed by bpf-ksym-lookup-and-generation.patch' in r.stderr
    assert 'make refresh-patch P=' in r.stderr
    # The tree's path, and the repository's copy to keep it in (scripts/overlay.map).
    assert "kernel/kallsyms_query/pass.rs  (overlay: keep it with cp " \
        "'%s/kernel/kallsyms_query/pass.rs' '%s/kallsyms_query/pass.rs'" % (src, ROOT) in r.stderr
    assert 'BPF_KSYM_DISCARD_EDITS=1' in r.stderr
    assert open(src / 'kernel/bpf/core.c').read().endswith('// edited\n')
    # Dropped on request; then a run finds nothing to stop for.
    assert prepare(tree, BPF_KSYM_DISCARD_EDITS='1').returncode == 0
    assert not open(src / 'kernel/bpf/core.c').read().endswith('// edited\n')
    r = prepare(tree)
    assert r.returncode == 0 and '(0 file(s) updated)' in r.stderr


def test_an_edit_the_repository_has_too_passes(tree):
    src = tree / 'src'
    shutil.copy(os.path.join(ROOT, 'kallsyms_query/pass.rs'),
                src / 'kernel/kallsyms_query/pass.rs')
    assert prepare(tree).returncode == 0


def test_a_tree_prepared_before_the_sums_still_keeps_edits(tree):
    src = tree / 'src'
    os.remove(src / '.bpf_ksym_sums')
    os.utime(src / '.bpf_ksym_tree', (1, 1))
    append(src / 'kernel/kallsyms_query/answer.rs')
    r = prepare(tree)
    assert r.returncode == 1 and 'kernel/kallsyms_query/answer.rs' in r.stderr
    assert prepare(tree, BPF_KSYM_DISCARD_EDITS='1').returncode == 0


def test_a_folder_the_overlay_no_longer_puts_there_goes(tree):
    """A file owned last time in a folder of its own (where the overlay map used to put a
    folder) goes, and so does its folder: the tree is the one make series builds."""
    src = tree / 'src'
    rel = 'old_overlay_dir/sub/x.rs'
    os.makedirs(src / 'old_overlay_dir' / 'sub')
    (src / rel).write_text('// old\n')
    with open(src / '.bpf_ksym_tree', 'a') as f:
        f.write(rel + '\n')
    with open(src / '.bpf_ksym_sums', 'a') as f:
        f.write('%s  %s\n' % (hashlib.sha256(b'// old\n').hexdigest(), rel))
    r = prepare(tree)
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(src / 'old_overlay_dir')
    assert os.path.isdir(src / 'kernel' / 'bpf' / 'ksym')
