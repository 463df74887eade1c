#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the KALLSYMS_QUERY uapi header's kernel-doc against what it describes.

Usage: check-uapi-doc.py [--root DIR]   (DIR: the repository, by default this script's
parent's parent)

Fails (exit status 1, one "file:line: message" per finding) unless:

(a) every member of struct kallsyms_query and struct kallsyms_query_addr has a kernel-doc
    description that starts with its byte range "[a, b)" (for struct kallsyms_query also its
    direction, in, out or in/out, and version, "[a, b) in, v0."), the ranges are the real
    layout (gcc compiles a program that prints offsetof and sizeof of every member), each
    member of version N ends after KALLSYMS_QUERY_SIZE_VER(N-1) and at or before
    KALLSYMS_QUERY_SIZE_VERN, and the structs' sizes are the newest KALLSYMS_QUERY_SIZE_VER*
    and KALLSYMS_QUERY_ADDR_SIZE_VER*;
(b) every errno of the table in "DOC: errors" is a real errno name, and every errno the code
    can return is in the table: the errno identifiers of kallsyms_query/*.rs (tests.rs and
    comments excluded; an allocation counts as ENOMEM, a user copy as EFAULT) and of the C
    seam kallsyms_ioctl() in the patches (-ERESTARTSYS counts as EINTR, -ENOIOCTLCMD as
    ENOTTY); an errno that only a callee's return value carries (Error::from_errno(),
    to_result()) is not traced;
(c) every kernel-doc directive of Documentation/userspace-api/kallsyms_query.rst names a
    file, DOC: section and identifiers that exist, and every literalinclude a file that does.

On success prints "uapi doc: ok (N fields, M errnos checked)". Python 3 standard library and
gcc only.
"""
import argparse
import errno
import os
import re
import shutil
import subprocess
import sys
import tempfile

HEADER = 'include/uapi/linux/kallsyms_query.h'
RST = 'Documentation/userspace-api/kallsyms_query.rst'
RUST_DIR = 'kallsyms_query'
RUST_EXCLUDED = {'tests.rs'}
SEAM_PATCHES = ['patches/kallsyms-query-ioctl.patch',
                'patches/kallsyms-iterator-in-rust.patch']
SEAM = 'kallsyms_ioctl'
# struct: (the prefix of its version sizes' defines, whether members carry direction and
# version)
STRUCTS = {
    'kallsyms_query': ('KALLSYMS_QUERY_SIZE_VER', True),
    'kallsyms_query_addr': ('KALLSYMS_QUERY_ADDR_SIZE_VER', False),
}

# Kernel-internal errnos (include/linux/errno.h): what user space sees instead, or None if
# they must never reach it.
KERNEL_ERRNOS = {
    'ERESTARTSYS': 'EINTR', 'ERESTARTNOINTR': 'EINTR', 'ERESTARTNOHAND': 'EINTR',
    'ERESTART_RESTARTBLOCK': 'EINTR', 'ENOIOCTLCMD': 'ENOTTY',
    'EPROBE_DEFER': None, 'EOPENSTALLED': None, 'ENOPARAM': None, 'EBADHANDLE': None,
    'ENOTSYNC': None, 'EBADCOOKIE': None, 'ENOTSUPP': None, 'ETOOSMALL': None,
    'ESERVERFAULT': None, 'EBADTYPE': None, 'EJUKEBOX': None, 'EIOCBQUEUED': None,
    'ERECALLCONFLICT': None, 'ENOGRACE': None,
}
USER_ERRNOS = set(errno.errorcode.values())
# Code that fails with an errno it does not name.
IMPLIED = [
    (re.compile(r'\bGFP_[A-Z_]+\b'), 'ENOMEM', 'an allocation'),
    (re.compile(r'\b(UserSlice|strncpy_from_user|check_zeroed_user)\b'), 'EFAULT',
     'a user copy'),
]
ERRNO_IDENT = re.compile(r'\bE[A-Z0-9_]{2,}\b')
RANGE = re.compile(r'^\[(\d+), (\d+)\)')
RANGE_DIR_VER = re.compile(r'^\[(\d+), (\d+)\) (in/out|in|out), v(\d+)\.')


class Findings:
    def __init__(self):
        self.items = []

    def add(self, path, line, msg):
        self.items.append(f'{path}:{line}: {msg}')


def read_lines(root, rel):
    with open(os.path.join(root, rel), encoding='utf-8') as f:
        return f.read().split('\n')


# --- the header's kernel-doc ---------------------------------------------------------------

def doc_comments(lines):
    """Each /** ... */ comment as (first line number, [(line number, text without " * ")])."""
    out, cur, start = [], None, 0
    for i, line in enumerate(lines, 1):
        if cur is None:
            if line.strip() == '/**':
                cur, start = [], i
            continue
        if line.strip() == '*/':
            out.append((start, cur))
            cur = None
            continue
        text = line.strip()
        text = text[1:] if text.startswith('*') else text
        cur.append((i, text[1:] if text.startswith(' ') else text))
    return out


def doc_titles(comments):
    """DOC: titles -> line, and kernel-doc identifiers (struct, enum, function...) -> line."""
    docs, idents = {}, {}
    for _start, body in comments:
        if not body:
            continue
        line, first = body[0]
        m = re.match(r'DOC:\s*(.*\S)', first)
        if m:
            docs[m.group(1)] = line
            continue
        m = re.match(r'(?:(?:struct|union|enum|typedef)\s+)?(\w+)\s*(?:\(\))?\s*-', first)
        if m:
            idents[m.group(1)] = line
    return docs, idents


def member_docs(body):
    """@member: description (continuation lines joined) -> (line, description)."""
    docs, cur = {}, None
    for line, text in body[1:]:
        m = re.match(r'@(\w+):\s*(.*)', text)
        if m:
            cur = m.group(1)
            docs[cur] = (line, m.group(2).strip())
        elif cur and text.strip():
            docs[cur] = (docs[cur][0], (docs[cur][1] + ' ' + text.strip()).strip())
        else:
            cur = None
    return docs


def struct_members(lines, name):
    """The members of struct NAME as [(line, member)], and the struct's line."""
    start = None
    for i, line in enumerate(lines, 1):
        if re.match(rf'\s*struct\s+{name}\s*\{{', line):
            start = i
            break
    if start is None:
        return None, None
    members = []
    for i in range(start, len(lines)):
        line = lines[i].split('//')[0].strip()
        if line.startswith('}'):
            break
        m = re.match(r'[\w\s\*]*?\b(\w+)\s*(\[[^\]]*\])?\s*;$', line)
        if m:
            members.append((i + 1, m.group(1)))
    return members, start


def layout(root, members, findings):
    """offsetof/sizeof of every member, the structs' sizes and the version defines, from gcc."""
    header = os.path.join(root, HEADER)
    text = open(header, encoding='utf-8').read()
    defines = sorted(set(re.findall(r'#define\s+(KALLSYMS_QUERY(?:_ADDR)?_SIZE_VER\d+)\b', text)))
    prog = ['#include <stddef.h>', '#include <stdio.h>', '#include <linux/kallsyms_query.h>',
            'int main(void)', '{']
    for struct, mems in members.items():
        prog.append(f'\tprintf("S {struct} %zu\\n", sizeof(struct {struct}));')
        for _line, m in mems:
            prog.append(f'\tprintf("M {struct} {m} %zu %zu\\n", offsetof(struct {struct}, {m}), '
                        f'sizeof(((struct {struct} *)0)->{m}));')
    for d in defines:
        prog.append(f'\tprintf("D {d} %llu\\n", (unsigned long long)({d}));')
    prog += ['\treturn 0;', '}', '']
    gcc = shutil.which('gcc')
    if not gcc:
        findings.add(HEADER, 1, 'gcc not found: cannot check the layout')
        return None
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, 'linux'))
        shutil.copy(header, os.path.join(tmp, 'linux', 'kallsyms_query.h'))
        src, exe = os.path.join(tmp, 'layout.c'), os.path.join(tmp, 'layout')
        with open(src, 'w', encoding='utf-8') as f:
            f.write('\n'.join(prog))
        r = subprocess.run([gcc, '-std=gnu11', '-Wall', '-I', tmp, '-o', exe, src],
                           capture_output=True, text=True, check=False)
        if r.returncode:
            first = (r.stderr.strip().split('\n') or ['?'])[0]
            findings.add(HEADER, 1, f'the layout program does not compile: {first}')
            return None
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    res = {'sizeof': {}, 'member': {}, 'define': {}}
    for line in out.split('\n'):
        f = line.split()
        if not f:
            continue
        if f[0] == 'S':
            res['sizeof'][f[1]] = int(f[2])
        elif f[0] == 'M':
            res['member'][(f[1], f[2])] = (int(f[3]), int(f[4]))
        elif f[0] == 'D':
            res['define'][f[1]] = int(f[2])
    return res


def check_structs(root, lines, comments, findings):
    """(a). Returns the number of members checked."""
    docs = {}
    for _start, body in comments:
        if body:
            m = re.match(r'struct\s+(\w+)\s*-', body[0][1])
            if m:
                docs[m.group(1)] = (body[0][0], member_docs(body))
    members = {}
    for struct in STRUCTS:
        mems, line = struct_members(lines, struct)
        if mems is None:
            findings.add(HEADER, 1, f'struct {struct} not found')
            continue
        if struct not in docs:
            findings.add(HEADER, line, f'struct {struct} has no kernel-doc comment')
            continue
        members[struct] = mems
    lay = layout(root, members, findings)
    if lay is None:
        return 0
    checked = 0
    for struct, mems in members.items():
        prefix, versioned = STRUCTS[struct]
        doc_line, mdocs = docs[struct]
        vers = {int(d[len(prefix):]): v for d, v in lay['define'].items()
                if d.startswith(prefix) and d[len(prefix):].isdigit()}
        if not vers:
            findings.add(HEADER, doc_line, f'struct {struct}: no {prefix}N defines')
            continue
        newest = max(vers)
        if lay['sizeof'][struct] != vers[newest]:
            findings.add(HEADER, doc_line, f'sizeof(struct {struct}) is {lay["sizeof"][struct]}, '
                         f'{prefix}{newest} is {vers[newest]}')
        names = {m for _l, m in mems}
        for extra in sorted(set(mdocs) - names):
            findings.add(HEADER, mdocs[extra][0], f'struct {struct}: @{extra} is not a member')
        for line, m in mems:
            checked += 1
            off, size = lay['member'][(struct, m)]
            real = f'[{off}, {off + size})'
            if m not in mdocs:
                findings.add(HEADER, line, f'struct {struct}: member {m} has no kernel-doc '
                             f'description (it is {real})')
                continue
            dline, desc = mdocs[m]
            mm = (RANGE_DIR_VER if versioned else RANGE).match(desc)
            if not mm:
                want = f'"{real} in|out|in/out, vN."' if versioned else f'"{real}"'
                findings.add(HEADER, dline, f'@{m}: the description does not start with {want}')
                continue
            a, b = int(mm.group(1)), int(mm.group(2))
            if (a, b) != (off, off + size):
                findings.add(HEADER, dline, f'@{m}: documented as [{a}, {b}), but it is {real}')
            if not versioned:
                continue
            v = int(mm.group(4))
            end = off + size
            if v not in vers:
                findings.add(HEADER, dline, f'@{m}: v{v}, but there is no {prefix}{v}')
            elif end > vers[v] or (v - 1 in vers and end <= vers[v - 1]) or \
                    (v > 0 and v - 1 not in vers):
                lo = vers.get(v - 1, '?') if v > 0 else 0
                findings.add(HEADER, dline, f'@{m}: v{v}, but it ends at {end}, not in '
                             f'({lo}, {vers[v]}] ({prefix}{v - 1 if v else ""}..{prefix}{v})')
    return checked


# --- errnos ----------------------------------------------------------------------------------

def errno_table(comments, findings):
    """The errnos of the table in DOC: errors -> line."""
    for _start, body in comments:
        if body and re.match(r'DOC:\s*errors\s*$', body[0][1]):
            break
    else:
        findings.add(HEADER, 1, 'no "DOC: errors" section')
        return {}
    table, rules = {}, 0
    for line, text in body:
        if re.match(r'=+\s+=+\s*$', text):
            rules += 1
            continue
        if rules == 2:
            m = re.match(r'``(\w+)``', text)
            if m:
                table[m.group(1)] = line
    if not table:
        findings.add(HEADER, body[0][0], 'no errno in the table of DOC: errors')
    for name, line in table.items():
        if name not in USER_ERRNOS:
            findings.add(HEADER, line, f'{name} in DOC: errors is not an errno name')
    return table


def strip_rust(text):
    """Rust source with comments, string and char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            i = j
        elif text.startswith('/*', i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith('/*', j):
                    depth, j = depth + 1, j + 2
                elif text.startswith('*/', j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append('\n' * text.count('\n', i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            out.append('\n' * text.count('\n', i, j))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]):
            i = text.index("'", i + 1 + (text[i + 1] == '\\')) + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def strip_c(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


def code_errnos(root, findings):
    """Errnos the code can return -> [(file, line)] where, as user space sees them."""
    found = {}

    def note(name, path, line, what=None):
        if name in KERNEL_ERRNOS:
            user = KERNEL_ERRNOS[name]
            if user is None:
                findings.add(path, line, f'{name} is kernel-internal and must not reach user space')
                return
            name, what = user, f'-{name}, which user space sees as {user}'
        elif name not in USER_ERRNOS:
            return
        found.setdefault(name, []).append((path, line, what))

    rust = os.path.join(root, RUST_DIR)
    files = sorted(f for f in os.listdir(rust) if f.endswith('.rs') and f not in RUST_EXCLUDED)
    if not files:
        findings.add(RUST_DIR, 1, 'no Rust source')
    for f in files:
        rel = f'{RUST_DIR}/{f}'
        code = strip_rust(open(os.path.join(rust, f), encoding='utf-8').read())
        for i, line in enumerate(code.split('\n'), 1):
            for m in ERRNO_IDENT.finditer(line):
                note(m.group(0), rel, i)
            for pat, name, what in IMPLIED:
                if pat.search(line):
                    note(name, rel, i, what)
    for rel in SEAM_PATCHES:
        lines = read_lines(root, rel)
        body, start, seen = [], None, False
        for i, line in enumerate(lines, 1):
            if line.startswith(('+++', '---', '-')) or not line[:1] in ('+', ' '):
                continue
            new = line[1:]
            if start is None and re.match(rf'(static\s+)?long\s+{SEAM}\s*\(', new):
                start, seen = i, True
            if start is not None:
                body.append((i, new))
                if new.startswith('}'):
                    code = strip_c('\n'.join(t for _i, t in body))
                    for (li, _t), text in zip(body, code.split('\n')):
                        for m in ERRNO_IDENT.finditer(text):
                            note(m.group(0), rel, li)
                    body, start = [], None
        if not seen:
            findings.add(rel, 1, f'no {SEAM}() in this patch')
    return found


def check_errnos(root, comments, findings):
    """(b). Returns the number of errnos checked."""
    table = errno_table(comments, findings)
    found = code_errnos(root, findings)
    for name in sorted(set(found) - set(table)):
        path, line, what = found[name][0]
        how = f' ({what})' if what else ''
        findings.add(path, line, f'{name}{how} can be returned but is not in DOC: errors of '
                     f'{HEADER}')
    return len(set(table) | set(found))


# --- the reference page --------------------------------------------------------------------

def check_rst(root, findings):
    """(c)."""
    lines = read_lines(root, RST)
    rst_dir = os.path.dirname(os.path.join(root, RST))
    cache = {}
    i = 0
    while i < len(lines):
        m = re.match(r'\.\.\s+(kernel-doc|literalinclude)::\s*(\S+)\s*$', lines[i])
        if not m:
            i += 1
            continue
        kind, arg, line = m.group(1), m.group(2), i + 1
        opts = []
        i += 1
        while i < len(lines) and re.match(r'\s+:', lines[i]):
            om = re.match(r'\s+:([\w-]+):\s*(.*?)\s*$', lines[i])
            if om:
                opts.append((i + 1, om.group(1), om.group(2)))
            i += 1
        if kind == 'literalinclude':
            if not os.path.isfile(os.path.normpath(os.path.join(rst_dir, arg))):
                findings.add(RST, line, f'literalinclude: no file {arg}')
            continue
        if not os.path.isfile(os.path.join(root, arg)):
            findings.add(RST, line, f'kernel-doc: no file {arg}')
            continue
        if arg not in cache:
            cache[arg] = doc_titles(doc_comments(read_lines(root, arg)))
        docs, idents = cache[arg]
        for oline, name, value in opts:
            if name == 'doc':
                if value not in docs:
                    findings.add(RST, oline, f'kernel-doc: no "DOC: {value}" in {arg}')
            elif name in ('identifiers', 'functions', 'no-identifiers'):
                for ident in value.split():
                    if ident not in idents:
                        findings.add(RST, oline, f'kernel-doc: no kernel-doc for {ident} in {arg}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    root = ap.parse_args().root
    findings = Findings()
    lines = read_lines(root, HEADER)
    comments = doc_comments(lines)
    fields = check_structs(root, lines, comments, findings)
    errnos = check_errnos(root, comments, findings)
    check_rst(root, findings)
    for f in findings.items:
        print(f)
    if findings.items:
        return 1
    print(f'uapi doc: ok ({fields} fields, {errnos} errnos checked)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
