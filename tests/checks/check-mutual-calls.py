#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Inside a folder of service/, no two .c files use each other's functions (or data), but the pairs
ALLOWED names: a file that calls another is below it, so that each file can be read, tested and
changed with what it uses and without what uses it. A pair that would call each other is broken by a
callback the wiring file registers (claims.c's ClaimsOwnerGone), or by moving a function to its owner.

The daemon core keeps the manager pattern's pairs: the context starts and stops the poller and the
backend watch, which call back into it (context_init_device(), context_switch_backend(), ...); the
concerns report through observer.c, not context.c. The D-Bus face has none: bus-face.c is the wiring.
An allowed pair that no longer uses each other fails too, so that ALLOWED says what the code is.

Read from the object files of each folder's static library (nm): a file uses another when one of its
undefined symbols is a global symbol the other defines. Calls through a function pointer that a third
file registers are not uses of the callee, which is the point.
Usage: check-mutual-calls.py NM FOLDER LIBRARY [FOLDER LIBRARY...]"""

import os
import subprocess
import sys

# Per folder, the pairs of files (without .c) that may use each other.
ALLOWED = {
    'daemon': {('backend-watch', 'context'), ('context', 'poller')},
    'bus': set(),
}


def symbols(nm, library):
    """{object file name without .c.o: (defined global symbols, undefined symbols)} of library."""
    out = subprocess.run([nm, '-A', library], check=True, capture_output=True, text=True).stdout
    objects = {}
    for line in out.splitlines():
        # LIBRARY:MEMBER.o: [ADDRESS] TYPE NAME
        head, _, rest = line.rpartition('.o:')
        fields = rest.split()
        if not head or len(fields) < 2:
            continue
        member = os.path.basename(head.split(':')[-1])
        if member.endswith('.c'):
            member = member[:-2]
        defined, undefined = objects.setdefault(member, (set(), set()))
        kind, name = fields[-2], fields[-1]
        if kind == 'U':
            undefined.add(name)
        elif kind.isupper():
            defined.add(name)
    return objects


def uses(objects):
    """{file: {other file: symbols of other it uses}}"""
    owner = {s: f for f, (defined, _) in objects.items() for s in defined}
    result = {}
    for f, (_, undefined) in objects.items():
        result[f] = {}
        for s in undefined:
            o = owner.get(s)
            if o is not None and o != f:
                result[f].setdefault(o, set()).add(s)
    return result


def main():
    nm, args = sys.argv[1], sys.argv[2:]
    if not args or len(args) % 2:
        sys.exit(__doc__)
    errors = []
    for folder, library in zip(args[::2], args[1::2]):
        objects = symbols(nm, library)
        empty = sorted(f for f, (defined, _) in objects.items() if not defined)
        if not objects or empty:
            # An LTO object (its symbols are in the IR) or a library nm cannot read: nothing to judge by.
            errors.append('%s (%s): nm found no global symbol defined in %s' %
                          (folder, library, ', '.join(empty) or 'any object'))
            continue
        graph = uses(objects)
        pairs = {(a, b) for a in graph for b in graph[a] if a < b and a in graph.get(b, {})}
        print('service/%s: %d files; who uses whom:' % (folder, len(graph)))
        for f in sorted(graph):
            print('  %s -> %s' % (f, ', '.join(sorted(graph[f])) or '-'))
        allowed = ALLOWED.get(folder, set())
        for a, b in sorted(allowed - pairs):
            errors.append('service/%s: %s.c and %s.c no longer use each other: drop the pair from ALLOWED in %s'
                          % (folder, a, b, os.path.basename(__file__)))
        for a, b in sorted(pairs):
            if (a, b) in allowed:
                print('  allowed pair: %s.c <-> %s.c' % (a, b))
                continue
            errors.append('service/%s: %s.c and %s.c use each other: %s.c uses %s, %s.c uses %s (break it '
                          'with a callback or by moving a function to its owner; ALLOWED in %s lists the '
                          'pairs that may stay)'
                          % (folder, a, b, a, ' '.join(sorted(graph[a][b])), b, ' '.join(sorted(graph[b][a])),
                             os.path.basename(__file__)))
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


main()
