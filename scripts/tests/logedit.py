# SPDX-License-Identifier: GPL-2.0
"""Recorded guest logs (lists of lines) for the unit tests: reading, editing, scanning."""
import gzip
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import results  # noqa: E402


def recorded(name):
    """The lines of logs/<name>.gz."""
    with gzip.open(os.path.join(HERE, 'logs', name + '.gz'), 'rt') as f:
        return f.read().splitlines(True)


def scan(tmp_path, lines, variant):
    """results.scan() of @lines, written to a file under @tmp_path."""
    path = tmp_path / 'guest.log'
    path.write_text(''.join(lines))
    return results.scan(str(path), variant)


def replace_first(lines, old, new):
    """Replace the first occurrence of old; the recorded log must contain it."""
    for i, line in enumerate(lines):
        if old in line:
            lines[i] = line.replace(old, new, 1)
            return lines
    raise AssertionError('not in the recorded log: %r' % old)
