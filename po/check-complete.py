#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fails unless po/LANG.po translates every message of the sources in po/POTFILES.

Usage: check-complete.py SRCDIR LANG [--xgettext PATH] [--msgfmt PATH]

Regenerates the template from the sources with xgettext into a temporary directory (the keywords of
meson's glib preset, as po/meson.build uses), then lists every message that LANG.po lacks, leaves
(partly) untranslated or marks fuzzy, and runs msgfmt --check on LANG.po (printf formats, header).
Entries of LANG.po that the sources no longer use are only reported (ninja tpaccel-update-po drops them).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# meson's i18n.gettext(preset: 'glib') keywords; xgettext's own C keywords (gettext, ngettext, ...) apply too.
KEYWORDS = ["_", "N_", "C_:1c,2", "NC_:1c,2", "g_dcgettext:2", "g_dngettext:2,3", "g_dpgettext2:2c,3"]

FIELD = re.compile(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?) "(.*)"$')
ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def unescape(text):
    return re.sub(r'\\(.)', lambda m: ESCAPES.get(m.group(1), "\\" + m.group(1)), text)


def parse_po(path):
    """Returns [(line, entry)], entry = {field: text, "flags": set(), "obsolete": bool}."""
    entries = []
    entry = field = None
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            obsolete = line.startswith("#~")
            if obsolete:
                line = line[2:].lstrip()
                if line.startswith("|"):  # the previous msgid of an obsolete entry
                    continue
            if not line.strip():
                entry = field = None
                continue
            if entry is None:
                entry = {"flags": set(), "obsolete": False}
                entries.append((number, entry))
            entry["obsolete"] |= obsolete
            if line.startswith("#,"):
                entry["flags"] |= {flag.strip() for flag in line[2:].split(",")}
                continue
            if line.startswith("#"):
                continue
            match = FIELD.match(line)
            if match:
                field = match.group(1)
                entry[field] = unescape(match.group(2))
            elif line.startswith('"') and line.endswith('"') and field:
                entry[field] += unescape(line[1:-1])
            else:
                sys.exit(f"{path}:{number}: cannot parse: {raw.rstrip()}")
    return [(number, e) for number, e in entries if "msgid" in e]


def key(entry):
    return (entry.get("msgctxt"), entry["msgid"])


def show(entry):
    text = entry["msgid"].replace("\n", "\\n")
    if len(text) > 100:
        text = text[:97] + "..."
    return ("[" + entry["msgctxt"] + "] " if "msgctxt" in entry else "") + '"' + text + '"'


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("srcdir")
    parser.add_argument("lang")
    parser.add_argument("--xgettext", default="xgettext")
    parser.add_argument("--msgfmt", default="msgfmt")
    args = parser.parse_args()
    po_path = os.path.join(args.srcdir, "po", args.lang + ".po")

    with tempfile.TemporaryDirectory(prefix="tpaccel-po-") as tmp:
        pot_path = os.path.join(tmp, "tpaccel.pot")
        subprocess.run([args.xgettext, "--package-name=tpaccel", "--from-code=UTF-8",
                        "-f", os.path.join(args.srcdir, "po", "POTFILES"), "-D", args.srcdir, "-o", pot_path]
                       + ["--keyword=" + k for k in KEYWORDS], check=True)
        template = [e for _, e in parse_po(pot_path) if e["msgid"]]

    # Without the template's messages the check would pass on nothing.
    sources = [line.strip() for line in open(os.path.join(args.srcdir, "po", "POTFILES"), encoding="utf-8")
               if line.strip() and not line.startswith("#")]
    if len(template) < len(sources):
        sys.exit(f"xgettext found only {len(template)} messages in {len(sources)} files of po/POTFILES")

    translations = {key(e): (number, e) for number, e in parse_po(po_path) if e["msgid"] and not e["obsolete"]}
    problems = []
    for entry in template:
        number, translation = translations.get(key(entry), (None, None))
        if translation is None:
            problems.append(f"{po_path}: missing: {show(entry)}")
            continue
        where = f"{po_path}:{number}"
        if "msgid_plural" in entry and "msgstr[0]" not in translation:
            problems.append(f"{where}: has no plural forms: {show(entry)}")
        elif "fuzzy" in translation["flags"]:
            problems.append(f"{where}: fuzzy: {show(entry)}")
        elif any(field.startswith("msgstr") and not text for field, text in translation.items()):
            problems.append(f"{where}: untranslated: {show(entry)}")

    used = {key(e) for e in template}
    for k, (number, translation) in translations.items():
        if k not in used:
            print(f"{po_path}:{number}: note: no longer in the sources: {show(translation)}")

    check = subprocess.run([args.msgfmt, "--check", "--statistics", "-o", os.devnull, po_path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check.returncode != 0:
        problems.append(f"msgfmt --check {po_path} failed:\n{check.stdout.rstrip()}")

    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s) in {args.lang}.po; to fix: ninja -C BUILD tpaccel-pot, then "
              f"ninja -C BUILD tpaccel-update-po, and translate every untranslated and fuzzy entry")
        return 1
    print(f"{args.lang}.po translates all {len(template)} messages ({check.stdout.strip()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
