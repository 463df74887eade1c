"""Edits of recorded guest logs (lists of lines) for the unit tests."""


def replace_first(lines, old, new):
    """Replace the first occurrence of old; the recorded log must contain it."""
    for i, line in enumerate(lines):
        if old in line:
            lines[i] = line.replace(old, new, 1)
            return lines
    raise AssertionError('not in the recorded log: %r' % old)
