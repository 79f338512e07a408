#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Lists the unittest test methods of the Python files in a folder, for meson to register one test per
method at configure time (the scheme of iio-sensor-proxy and power-profiles-daemon). Reads the source
with ast: no test module is imported, so a missing test dependency cannot hide a test.

Usage: list-tests.py DIR
Prints one line per test method, "FILE CLASS.METHOD", for every *.py file in DIR (not below it) that has
a class defining test_* methods. Fails when two classes of one file define the same test name (the meson
test name, FILE/METHOD, would not be unique)."""

import ast
import os
import sys


def tests_of(path):
    tree = ast.parse(open(path).read(), path)
    seen = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith('test_'):
                if item.name in seen and seen[item.name] != node.name:
                    sys.exit('%s: %s is defined in %s and in %s' % (path, item.name, seen[item.name], node.name))
                seen[item.name] = node.name
                yield node.name, item.name


def main():
    folder = sys.argv[1]
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not name.endswith('.py') or not os.path.isfile(path):
            continue
        for cls, method in tests_of(path):
            print(name, '%s.%s' % (cls, method))


if __name__ == '__main__':
    main()
