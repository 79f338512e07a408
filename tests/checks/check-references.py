#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Stale references in comments and documents, and reference tables that miss what the code has.

Fails when:
1. a comment (in *.c, *.h, *.py, *.sh, meson.build: C /* */ and // comments, # comments) or a document
   (*.md, NEWS, the man pages) names a repository path that does not exist. A repository path is a word
   starting with one of the top-level folders (service/, client/, tests/, scripts/, bench/, data/,
   docs/, policy/, debian/, po/), optionally after ../ (links between documents); it exists as written,
   or as the source of a built file (NAME.in, NAME.c). Paths with a placeholder (followed by *, < or {,
   or with a capitalised word such as LANG), below a build directory (build/, build-test/, ...), or in
   OTHER_REPOSITORIES (another project's file of the same name) are not checked.
2. a comment or document names a function, `name()`, that is not defined anywhere in the tree. The
   rule: a name is checked only when it looks like the project's own, i.e. its first word (up to the
   first underscore) is the first word of a function, macro or Python def defined in the tree (poller_,
   claims_, ec_, bus_, ...); a one-word name (ioperm(), setuid()) and a method (x.y(), x->y()) are not
   checked. It then must be defined in the tree (a C function or function-like macro, a Python def, a
   shell function), or be declared in the headers of a library the project uses (LIBRARY_HEADERS), or be
   in EXTERNAL below (functions of the kernel, its drivers, tp_smapi, systemd's sources and meson that
   comments and documents name on purpose as models or sources).
3. a comment cites an internal work item (the word issue and a number, with or without # and a point
   number, or a number after "(#") instead of saying what it refers to; documents may cite them as
   dated evidence, and tp_smapi's issues are another project's.
4. a comment or document points to a section of a document that it does not have: README, HACKING.md
   or a docs/*.md file followed by a quoted title (optionally after a comma or a Markdown link target)
   needs a heading, or a bold paragraph lead, starting with that title in that document (case aside),
   or a golden sequence of that name (docs/PROTOCOL.md);
   a man page of the tree followed by an upper-case word needs a .SH starting with it.
5. a document or a comment calls the 2006 patch series (docs/PROTOCOL.md
   defines it) by its old nickname: the word "seeds" after "the", or before an apostrophe or "PATCH"
   (random seeds are another word).
6. a man page has two sections of the same name, or tpacceld(8) misses a long option of
   service/main/options.c, tpaccelctl(1) a command or option of client/ctl/tpaccelctl.c, the README's
   polkit table an action of policy/*.policy.in or a method of service/bus/bus-polkit.c's table,
   tpacceld(8)'s STATE FILE section a key of service/state/state-file.c, docs/DBUS.md a member
   (method, property, signal; deprecated ones aside) of data/*.xml, or HACKING.md's layer table differs
   from LAYERS in tests/checks/check-layers.py.
7. a list of names misses or adds to the table that owns it: the fault kinds of service/sim/sim-fault.c's
   table in tpacceld(8)'s --sim-fault and in docs/EMULATOR.md (the parse error as printed, a table row
   per kind); the keys of client/common/accel-props.c's table (settable: with a setter) in tpaccelctl(1)'s
   KEYS and in client/tpaccelctl.bash-completion, with client/ctl/tpaccelctl.c's commands and options;
   the properties of data/org.thinkpad.Accelerometer.xml in the bus fuzzer's (tests/busfuzz/busfuzz.c).

PENDING lists stale references in files other work is changing at the time this check was written; each
entry is (file, reference) and is reported, not failed on, while it is there; an entry no longer found
fails the check, so that the list only shrinks. Usage: check-references.py SOURCE_ROOT
"""
import ast
import os
import re
import sys
import xml.etree.ElementTree as ET

TOP = ('service', 'client', 'tests', 'scripts', 'bench', 'data', 'docs', 'policy', 'debian', 'po')
SKIP_DIRS = {'.git', 'subprojects', '__pycache__'}
COMMENTED = ('.c', '.h', '.py', '.sh')
DOCUMENTS = ('.md', '.1', '.8')

# Functions of other programs that comments and documents name on purpose, as sources or models.
EXTERNAL = {
    # the 2006 patch series and tp_smapi 0.43 (thinkpad_ec.c, hdaps.c)
    'thinkpad_ec_lock', 'thinkpad_ec_try_read_row', 'thinkpad_ec_prefetch_row', 'thinkpad_ec_invalidate',
    'hdaps_device_init', 'hdaps_device_shutdown', 'hdaps_exit', 'hdaps_mousedev_poll', 'hdaps_set_ec_config',
    'read_tp_ec_row', 'hdaps_probe', 'hdaps_get_ec_mode',
    'input_defuzz_abs_event',  # the kernel's input core
    'exec_child', 'bus_verify_polkit_async',  # systemd 252's sources
    'find_installation', 'add_test_setup',  # meson
}
# Files of other projects with a path that looks like ours (hdapsd's recorded umockdev device).
OTHER_REPOSITORIES = {'tests/hdaps.umockdev'}
LIBRARY_HEADERS = ['/usr/include/json-glib-1.0', '/usr/include/glib-2.0', '/usr/include/systemd',
                   '/usr/include/polkit-1', '/usr/include/libudev.h']


def declared_in_libraries(name, cache={}):
    if name not in cache:
        pattern = re.compile(r'\b%s\s*\(' % re.escape(name))
        cache[name] = False
        for top in LIBRARY_HEADERS:
            if os.path.isfile(top):
                paths = [top]
            else:
                paths = (os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs)
            for path in paths:
                try:
                    with open(path, errors='replace') as f:
                        if pattern.search(f.read()):
                            cache[name] = True
                            break
                except OSError:
                    continue
            if cache[name]:
                break
    return cache[name]

PENDING = set()


def walk(root):
    for top, dirs, files in os.walk(root):
        rel = os.path.relpath(top, root)
        # Not build directories (build*, dpkg-buildpackage's obj-*) nor debhelper's staging directories
        # (every folder in the debian folder but source).
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS
                         and not (rel == '.' and d.startswith(('build', 'obj-')))
                         and not (rel == 'debian' and d != 'source'))
        for name in sorted(files):
            yield os.path.normpath(os.path.join(rel, name))


def read(root, rel):
    try:
        with open(os.path.join(root, rel), encoding='utf-8') as f:
            return f.read()
    except (UnicodeDecodeError, FileNotFoundError):
        return None


C_COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', re.S)
HASH_COMMENT = re.compile(r'(?:^|\s)#[^\n]*')


def comments(rel, text):
    """(line, text) of each comment of a source file; a document is all text."""
    if rel.endswith(('.c', '.h')):
        for m in C_COMMENT.finditer(text):
            if m.group(0).startswith('"'):
                continue
            yield text.count('\n', 0, m.start()) + 1, m.group(0)
    else:
        for m in HASH_COMMENT.finditer(text):
            if m.group(0).lstrip().startswith('#!'):
                continue
            yield text.count('\n', 0, m.start()) + 1 + (m.group(0)[0] == '\n'), m.group(0)
        if rel.endswith('.py'):
            try:
                tree = ast.parse(text)
            except SyntaxError:
                return
            for node in ast.walk(tree):
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)):
                    doc = ast.get_docstring(node, clean=False)
                    if doc and node.body:
                        yield node.body[0].lineno, doc


PATH = re.compile(r'(?<![\w/.$-])((?:\.\./)*)((?:%s)/[A-Za-z0-9_.@/+-]*[A-Za-z0-9_])' % '|'.join(TOP))
WORK_ITEM = re.compile(r'(?<!tp_smapi )\b[Ii]ssues? #?\d+(?:\.\d+)?(?:, points? \d+(?: and \d+)?)?|\(#\d+\)')
SECTION = re.compile(r'\b((?:docs/(?:evidence/)?)?[A-Z][A-Z_-]*\.md|README)\]?(?:\([^)\s]*\))?,?\s+"([^"\n]+)"')
MAN_SECTION = re.compile(r'\b(tpacceld\(8\)|tpaccelctl\(1\)|tpaccel-tray\(1\)),?\s+([A-Z][A-Z ]*[A-Z])\b')
MAN_PAGES = {'tpacceld(8)': 'service/main/tpacceld.8', 'tpaccelctl(1)': 'client/tpaccelctl.1',
             'tpaccel-tray(1)': 'client/tpaccel-tray.1'}
SEEDS = re.compile(r"\b[Tt]he seeds\b|\b[Ss]eeds'|\b[Ss]eeds PATCH\b")
CALL = re.compile(r'(?<![\w.>:$-])([a-z][a-z0-9]*_[a-z0-9_]+)\(\)')


def path_ok(root, path):
    full = os.path.join(root, path)
    if os.path.exists(full) or os.path.exists(full + '.in') or os.path.exists(full + '.c'):
        return True
    return path in OTHER_REPOSITORIES or re.search(r'(^|[/.-])[A-Z]{3,}($|[/.-])', path) is not None


def definitions(root, files):
    names = set()
    cdef = re.compile(r'^(?:static\s+|inline\s+|const\s+|_\w+_\s+)*[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*\(',
                      re.M)
    macro = re.compile(r'^\s*#\s*define\s+([A-Za-z_]\w*)\(', re.M)
    pydef = re.compile(r'^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)', re.M)
    shdef = re.compile(r'^\s*([A-Za-z_][\w-]*)\s*\(\)\s*\{', re.M)
    for rel in files:
        text = read(root, rel)
        if text is None:
            continue
        if rel.endswith(('.c', '.h')):
            names.update(cdef.findall(text))
            names.update(macro.findall(text))
        elif rel.endswith('.py'):
            names.update(pydef.findall(text))
        elif rel.endswith('.sh'):
            names.update(shdef.findall(text))
    return names


def check_references(root, files, problems, pending_seen):
    defined = definitions(root, files)
    prefixes = {n.split('_')[0] for n in defined if '_' in n.strip('_')}
    for rel in files:
        name = os.path.basename(rel)
        is_doc = rel.endswith(DOCUMENTS) or name == 'NEWS'
        if not (is_doc or rel.endswith(COMMENTED) or name == 'meson.build'):
            continue
        text = read(root, rel)
        if text is None:
            continue
        spans = [(1, text)] if is_doc else comments(rel, text)
        for line0, chunk in spans:
            if is_doc and rel.endswith(('.1', '.8')):
                chunk = chunk.replace('\\-', '-').replace('\\fB', '').replace('\\fR', '').replace('\\fI', '')
            found = []
            for m in PATH.finditer(chunk):
                path = m.group(2).rstrip('.')
                if re.match(r'-?[*<{$]', chunk[m.end():m.end() + 2]):
                    continue
                if not path_ok(root, path):
                    found.append((m.start(), path))
            for m in CALL.finditer(chunk):
                fn = m.group(1)
                if fn.split('_')[0] not in prefixes or fn in defined or fn in EXTERNAL:
                    continue
                if declared_in_libraries(fn):
                    continue
                found.append((m.start(), fn + '()'))
            if not is_doc:
                found += [(m.start(), m.group(0)) for m in WORK_ITEM.finditer(chunk)]
            found += [(m.start(), f'"{m.group(0)}" for the 2006 patch series') for m in SEEDS.finditer(chunk)]
            for m in SECTION.finditer(chunk):
                doc = 'README.md' if m.group(1) == 'README' else m.group(1)
                candidates = (doc, os.path.join('docs', doc), os.path.join('docs', 'evidence', doc))
                target = next((read(root, d) for d in candidates if read(root, d)), None)
                title = ' '.join(m.group(2).split())
                lead = re.escape(title.rstrip('.'))
                anchor = r'^#+ %s|\*\*%s|^```golden %s$' % (lead, lead, lead)
                if target is not None and not re.search(anchor, target, re.M | re.I):
                    found.append((m.start(), f'{m.group(1)} "{title}"'))
            for m in MAN_SECTION.finditer(chunk):
                man = read(root, MAN_PAGES[m.group(1)])
                heads = [h.strip('"') for h in re.findall(r'^\.SH (.+)$', man, re.M)]
                if not any(h.startswith(m.group(2)) or m.group(2).startswith(h + ' ') for h in heads):
                    found.append((m.start(), f'{m.group(1)}, {m.group(2)}'))
            for pos, ref in found:
                line = line0 + chunk.count('\n', 0, pos)
                if (rel, ref) in PENDING:
                    pending_seen.add((rel, ref))
                    print(f'{rel}:{line}: pending: {ref}')
                    continue
                if ref.endswith('for the 2006 patch series'):
                    problems.append(f'{rel}:{line}: says {ref}: say "the 2006 patch series (PATCH NN)"')
                elif WORK_ITEM.fullmatch(ref):
                    problems.append(f'{rel}:{line}: cites the work item "{ref}": say what it refers to')
                else:
                    problems.append(f'{rel}:{line}: names {ref}, which does not exist')


def section(man, title):
    m = re.search(r'^\.SH "?%s"?\n(.*?)(?=^\.SH |\Z)' % re.escape(title), man, re.M | re.S)
    return m.group(1) if m else ''


def unescape(man):
    return man.replace('\\-', '-').replace('\\fB', '').replace('\\fR', '').replace('\\fI', '')


def check_tables(root, problems):
    longopts = re.compile(r'\{"([a-z][a-z-]*)",\s*(?:no|required|optional)_argument')
    for page in MAN_PAGES.values():
        heads = re.findall(r'^\.SH (.+)$', read(root, page), re.M)
        for h in sorted({h for h in heads if heads.count(h) > 1}):
            problems.append(f'{page}: two sections {h}')
    daemon_man = read(root, 'service/main/tpacceld.8')
    options = unescape(section(daemon_man, 'OPTIONS'))
    for opt in longopts.findall(read(root, 'service/main/options.c')):
        if f'--{opt}' not in options:
            problems.append(f'service/main/tpacceld.8: OPTIONS misses --{opt} (service/main/options.c)')

    ctl = read(root, 'client/ctl/tpaccelctl.c')
    ctl_man = read(root, 'client/tpaccelctl.1')
    commands = unescape(section(ctl_man, 'COMMANDS'))
    for cmd in re.findall(r'^\s*\{"([a-z-]+)",\s*ctl_\w+,', ctl, re.M):
        if not re.search(r'^%s\b' % re.escape(cmd), commands, re.M):
            problems.append(f'client/tpaccelctl.1: COMMANDS misses {cmd} (client/ctl/tpaccelctl.c)')
    ctl_options = unescape(section(ctl_man, 'OPTIONS'))
    for opt in longopts.findall(ctl):
        if f'--{opt}' not in ctl_options:
            problems.append(f'client/tpaccelctl.1: OPTIONS misses --{opt} (client/ctl/tpaccelctl.c)')

    readme = read(root, 'README.md')
    rows = [line for line in readme.splitlines() if line.startswith('| `org.thinkpad.')]
    for rel in sorted(f for f in os.listdir(os.path.join(root, 'policy')) if '.policy' in f):
        for action in re.findall(r'<action id="([^"]+)"', read(root, os.path.join('policy', rel))):
            if not any(f'`{action}`' in row for row in rows):
                problems.append(f'README.md: the polkit table misses {action} (policy/{rel})')
    polkit = read(root, 'service/bus/bus-polkit.c')
    for member, action in re.findall(r'\{\w+_INTERFACE,\s*"(\w+)",\s*ACTION_(\w+)\}', polkit):
        action_id = {'CALIBRATE': 'org.thinkpad.accelerometer.calibrate',
                     'CONFIGURE': 'org.thinkpad.accelerometer.configure',
                     'EC_RAW': 'org.thinkpad.ec.raw'}.get(action)
        row = next((r for r in rows if f'`{action_id}`' in r), '')
        if not re.search(r'\b%s\b' % member, row):
            problems.append(f'README.md: the polkit table misses {member} under {action_id} '
                            '(service/bus/bus-polkit.c)')

    state = read(root, 'service/state/state-file.c')
    state_man = section(daemon_man, 'STATE FILE')
    for key in re.findall(r'\[KEY_\w+\]\s*=\s*"([a-z_]+)"', state):
        if not re.search(r'^\.B %s$' % key, state_man, re.M):
            problems.append(f'service/main/tpacceld.8: STATE FILE misses the key {key} '
                            '(service/state/state-file.c)')

    # docs/DBUS.md shows every member of the interfaces with busctl or gdbus (deprecated ones aside).
    dbus_doc = set(re.findall(r'\w+', read(root, 'docs/DBUS.md')))
    for rel in sorted(f for f in os.listdir(os.path.join(root, 'data')) if f.endswith('.xml')):
        for iface in ET.fromstring(read(root, os.path.join('data', rel))).iter('interface'):
            for kind in ('method', 'property', 'signal'):
                for member in iface.iter(kind):
                    deprecated = any(a.get('name') == 'org.freedesktop.DBus.Deprecated'
                                     for a in member.findall('annotation'))
                    if not deprecated and member.get('name') not in dbus_doc:
                        problems.append(f'docs/DBUS.md: misses the {kind} {member.get("name")} of '
                                        f'{iface.get("name")} (data/{rel})')

    layers_py = read(root, 'tests/checks/check-layers.py')
    layers = ast.literal_eval(re.search(r'^LAYERS = (\{.*?^\})', layers_py, re.M | re.S).group(1))
    hacking = read(root, 'HACKING.md')
    table = {}
    for folder, deps in re.findall(r'^\| (\w+) \| ([\w, -]+) \|$', hacking, re.M):
        table[folder] = [] if deps.strip() == '-' else [d.strip() for d in deps.split(',')]
    if table != layers:
        differ = sorted(k for k in set(table) | set(layers) if table.get(k) != layers.get(k))
        problems.append('HACKING.md: the layer table differs from LAYERS in tests/checks/check-layers.py: '
                        + ', '.join(differ))


def words_list(text):
    return ' '.join(text.split())


def compare_names(problems, where, listed, owned, what, owner):
    """A list of names (listed) against the table that owns them (owned): one missing, one extra."""
    for name in owned:
        if name not in listed:
            problems.append(f'{where}: no {what} {name} ({owner})')
    for name in listed:
        if name not in owned:
            problems.append(f'{where}: {name} is no {what} ({owner})')


def check_fault_kinds(root, problems):
    table = re.search(r'sim_fault_kind_table\[\w*\] = \{(.*?)\};', read(root, 'service/sim/sim-fault.c'), re.S)
    kinds = re.findall(r'\[SIM_FAULT_\w+\]\s*=\s*"([a-z-]+)"', table.group(1))
    if not kinds or len(kinds) != table.group(1).count('[SIM_FAULT_'):
        problems.append('service/sim/sim-fault.c: the fault kind table is not read as this check expects: '
                        'update check_fault_kinds()')
    listed = ', '.join(kinds)
    option = re.search(r'^\.BI --sim-fault=.*?\n(.*?)(?=^\.TP|^\.SH)', unescape(read(root, 'service/main/tpacceld.8')),
                       re.M | re.S)
    if not option or listed not in words_list(option.group(1)):
        problems.append(f'service/main/tpacceld.8: --sim-fault does not list the fault kinds as the table has '
                        f'them ({listed}; service/sim/sim-fault.c)')
    emulator = read(root, 'docs/EMULATOR.md')
    if f"unknown fault kind 'x' (expected {listed})" not in words_list(emulator):
        problems.append(f"docs/EMULATOR.md: the error \"unknown fault kind 'x' (expected ...)\" does not list "
                        f'the fault kinds as the table has them ({listed}; service/sim/sim-fault.c)')
    compare_names(problems, 'docs/EMULATOR.md, the rows of the fault tables', re.findall(r'^\| `([a-z-]+)` \|', emulator, re.M),
                  kinds, 'fault kind', 'service/sim/sim-fault.c')


def bash_words(completion, name):
    m = re.search(r'^\s*local %s="([^"]*)"' % name, completion, re.M)
    return m.group(1).split() if m else []


def check_ctl_keys(root, problems):
    props = read(root, 'client/common/accel-props.c')
    table = re.search(r'AccelProperty properties\[\] = \{(.*?)^\};', props, re.M | re.S).group(1)
    rows = re.findall(r'\{"([a-z-]+)",\s*"\w+",\s*N_\("[^"]*"\),\s*(?:NULL|"[^"]*"),\s*(NULL|"\w+")', table)
    if not rows or len(rows) != len(re.findall(r'^\s*\{"', table, re.M)):
        problems.append('client/common/accel-props.c: the key table is not read as this check expects: '
                        'update check_ctl_keys()')
    settable = [key for key, setter in rows if setter != 'NULL']
    readonly = [key for key, setter in rows if setter == 'NULL']
    source = 'client/common/accel-props.c'

    completion_file = 'client/tpaccelctl.bash-completion'
    completion = read(root, completion_file)
    for name, keys in (('settable', settable), ('readonly', readonly)):
        compare_names(problems, f'{completion_file}, ${name}', bash_words(completion, name), keys,
                      f'{name} key', source)
    ctl = read(root, 'client/ctl/tpaccelctl.c')
    for cmd in re.findall(r'^\s*\{"([a-z-]+)",\s*ctl_\w+,', ctl, re.M) + ['help']:
        if cmd not in bash_words(completion, 'commands'):
            problems.append(f'{completion_file}: $commands misses {cmd} (client/ctl/tpaccelctl.c)')
    for opt, arg in re.findall(r'\{"([a-z][a-z-]*)",\s*(no|required)_argument', ctl):
        if f'--{opt}' + ('=' if arg == 'required' else '') not in bash_words(completion, 'options'):
            problems.append(f'{completion_file}: $options misses --{opt} (client/ctl/tpaccelctl.c)')

    keys = unescape(section(read(root, 'client/tpaccelctl.1'), 'KEYS'))
    settable_part, _, readonly_part = keys.partition('\n.PP\n')
    compare_names(problems, 'client/tpaccelctl.1, KEYS', re.findall(r'^\.B ([a-z-]+)$', settable_part, re.M),
                  settable, 'settable key', source)
    for key in readonly:
        if not re.search(r'(?<![\w-])%s(?![\w-])' % re.escape(key), readonly_part):
            problems.append(f'client/tpaccelctl.1: KEYS misses the read-only key {key} ({source})')


def check_fuzzed_properties(root, problems):
    xml = ET.fromstring(read(root, 'data/org.thinkpad.Accelerometer.xml'))
    fuzz = read(root, 'tests/busfuzz/busfuzz.c')
    listed = re.findall(r'"(\w*)"', re.search(r'char \*const properties\[\] = \{(.*?)\};', fuzz, re.S).group(1))
    compare_names(problems, 'tests/busfuzz/busfuzz.c, properties[]',
                  [n for n in listed if n not in ('', 'NoSuchProperty')], [p.get('name') for p in xml.iter('property')],
                  'property', 'data/org.thinkpad.Accelerometer.xml')


def main():
    default = os.path.join(os.path.dirname(__file__), '..', '..')
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else default)
    files = list(walk(root))
    problems, pending_seen = [], set()
    check_references(root, files, problems, pending_seen)
    check_tables(root, problems)
    check_fault_kinds(root, problems)
    check_ctl_keys(root, problems)
    check_fuzzed_properties(root, problems)
    for rel, ref in sorted(PENDING - pending_seen):
        problems.append(f'{rel}: the pending entry {ref} is gone: remove it from PENDING')
    for p in problems:
        print(p)
    print(f'{len(problems)} stale reference(s) or table gap(s)' if problems else 'no stale reference')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
