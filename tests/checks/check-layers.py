#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The daemon's folders are its layers (HACKING.md, "How it works"). Checks, on the sources:
  1. no file outside the D-Bus face (service/bus/) calls an sd_bus_emit_*() function;
  2. the includes between folders form no cycle, and every folder includes only its own headers and
     those of the folders LAYERS lets it include (HACKING.md's table): not a chain but a graph, so that
     the daemon core reaches the hardware (port/, sim/, ec/, hdaps/) only through backend/, and what
     the diagnosis report needs below the backend (DMI, the model table, the port log) stays in
     diagnose/, a layer above the core;
  3. no file below the face (but main/, which wires it) names sd-bus or a type the face's headers
     declare: the core's Context holds no D-Bus state, the face keeps it in its BusFace.
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
WIRING = 'main'  # the one folder above the face

EMIT = re.compile(r'\bsd_bus_emit_\w+\s*\(')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
# A type defined in a file: struct/enum/union NAME { (a typedef'd one is named the same); and a type
# name a header declares.
DEFINED = re.compile(r'\b(?:struct|enum|union)\s+(\w+)\s*\{')
TYPEDEF = re.compile(r'\btypedef\s+(?:struct|enum|union)\s+(\w+)\b')


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
    # The face's types: declared in its headers and defined in its files (not Context, which its headers
    # only declare, nor a .c file's private struct).
    defined, declared = set(), set()
    for folder, name, path in files:
        if folder == FACE:
            code = COMMENT.sub('', open(path, encoding='utf-8').read())
            defined.update(DEFINED.findall(code))
            if name.endswith('.h'):
                declared.update(TYPEDEF.findall(code))
    face_types = defined & declared
    if not face_types:
        sys.exit('check-layers.py: found no type in the headers of service/%s/' % FACE)
    face_names = re.compile(r'\bsd_bus\w*|\bsd-bus\.h\b|\b(?:%s)\b' % '|'.join(sorted(face_types)))
    for folder, name, path in files:
        text = open(path, encoding='utf-8').read()
        code = COMMENT.sub('', text)
        if folder != FACE:
            for m in EMIT.finditer(code):
                line = code.count('\n', 0, m.start()) + 1
                errors.append('%s/%s:%d: calls %s outside the D-Bus face (service/%s/)'
                              % (folder, name, line, m.group(0).rstrip('( '), FACE))
        if folder not in (FACE, WIRING):
            # Comments and strings blanked, their newlines kept, so that the line numbers are the file's.
            bare = STRING.sub('""', COMMENT.sub(lambda m: '\n' * m.group(0).count('\n'), text))
            for line, what in sorted({(bare.count('\n', 0, m.start()) + 1, m.group(0))
                                      for m in face_names.finditer(bare)}):
                errors.append("%s/%s:%d: names %s, the D-Bus face's (service/%s/): below the face nothing "
                              "is D-Bus" % (folder, name, line, what, FACE))
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
    print('%d files: no sd_bus_emit_*() outside service/%s/, no sd-bus or face type (%d) below it, '
          'folders include only what LAYERS allows:\n%s'
          % (len(files), FACE, len(face_types), '\n'.join('  %s: %s' % (f, ' '.join(sorted(edges.get(f, ())))) for f in LAYERS)))


main()
