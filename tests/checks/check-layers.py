#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The daemon's folders are its layers (HACKING.md, "How it works"). Checks, on the sources:
  1. no file outside the D-Bus face (service/bus/) calls an sd_bus_emit_*() function;
  2. the includes between folders form no cycle, and every folder includes only its own headers and
     those of the folders LAYERS lets it include (HACKING.md's table): not a chain but a graph, so that
     the daemon core reaches the hardware (port/, sim/, ec/, hdaps/) only through backend/, and what
     the diagnosis report needs below the backend (DMI, the model table, the port log) stays in
     diagnose/, a layer above the core.
Usage: check-layers.py SERVICE_DIR"""
import os
import re
import sys

# Lowest first: each folder and the folders whose headers it may include (besides its own). The table
# itself must have no cycle.
LAYERS = {
    'shared': [],
    'port': ['shared'],
    'sim': ['shared', 'port'],
    'ec': ['shared', 'port'],
    'hdaps': ['shared', 'port', 'ec'],
    'motion': ['shared'],
    'backend': ['shared', 'port', 'sim', 'ec', 'hdaps'],
    'state': ['shared', 'motion'],
    'daemon': ['shared', 'motion', 'backend', 'state'],
    'diagnose': ['shared', 'port', 'ec', 'hdaps', 'backend', 'daemon'],
    'bus': ['shared', 'ec', 'hdaps', 'motion', 'backend', 'state', 'daemon', 'diagnose'],
    'main': ['shared', 'port', 'sim', 'ec', 'hdaps', 'motion', 'backend', 'state', 'daemon', 'diagnose', 'bus'],
}
FACE = 'bus'

EMIT = re.compile(r'\bsd_bus_emit_\w+\s*\(')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def sources(root):
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if name.endswith(('.c', '.h')):
                yield folder, name, os.path.join(path, name)


def main():
    root = sys.argv[1]
    files = list(sources(root))
    unknown = sorted({f for f, _, _ in files} - set(LAYERS))
    if unknown:
        sys.exit('check-layers.py: folders not in LAYERS (add them where they belong): %s' % unknown)
    owner = {name: folder for folder, name, _ in files if name.endswith('.h')}
    errors = []
    edges = {}
    for folder, name, path in files:
        text = open(path, encoding='utf-8').read()
        code = COMMENT.sub('', text)
        if folder != FACE:
            for m in EMIT.finditer(code):
                line = code.count('\n', 0, m.start()) + 1
                errors.append('%s/%s:%d: calls %s outside the D-Bus face (service/%s/)'
                              % (folder, name, line, m.group(0).rstrip('( '), FACE))
        for inc in INCLUDE.findall(code):
            target = owner.get(os.path.basename(inc))
            if target is None or target == folder:
                continue  # generated (config.h) or the folder's own
            edges.setdefault(folder, set()).add(target)
            if target not in LAYERS[folder]:
                errors.append('%s/%s includes %s from %s/, which %s/ may not include (LAYERS: %s)'
                              % (folder, name, inc, target, folder, ', '.join(LAYERS[folder]) or 'none'))

    # A cycle between folders, in the includes and in the table (the table check implies the first;
    # each is reported on its own for a clear message).
    def cycles(graph, what):
        state = {}

        def visit(node, stack):
            state[node] = 'open'
            for nxt in sorted(graph.get(node, ())):
                if state.get(nxt) == 'open':
                    errors.append('%s cycle between folders: %s'
                                  % (what, ' -> '.join(stack[stack.index(nxt):] + [nxt])))
                elif nxt not in state:
                    visit(nxt, stack + [nxt])
            state[node] = 'done'

        for node in sorted(graph):
            if node not in state:
                visit(node, [node])

    cycles(LAYERS, 'LAYERS')
    cycles(edges, 'include')

    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print('%d files: no sd_bus_emit_*() outside service/%s/, folders include only what LAYERS allows:\n%s'
          % (len(files), FACE, '\n'.join('  %s: %s' % (f, ' '.join(sorted(edges.get(f, ())))) for f in LAYERS)))


main()
