#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fails unless the polkit actions file POLICY carries LANG's translation of every action's <description>
and <message>, as po/LANG.po translates them: what polkit's authentication agents show a user of LANG.

Usage: check-policy.py POLICY SRCDIR LANG

POLICY is the built (build/policy/) or the installed file (/usr/share/polkit-1/actions/). The translations
are merged in at build time through polkit's ITS rules (polkit.its: polkitd's before polkit 126,
libpolkit-gobject-1-dev's since); a build that did not find them installs the actions untranslated, and
this check says so.
"""
import importlib.util
import os
import sys
import xml.etree.ElementTree as ET

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def load_check_complete():
    spec = importlib.util.spec_from_file_location("check_complete",
                                                  os.path.join(os.path.dirname(__file__), "check-complete.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def normalized(text):
    return " ".join((text or "").split())


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: check-policy.py POLICY SRCDIR LANG")
    policy, srcdir, lang = sys.argv[1:]
    po_path = os.path.join(srcdir, "po", lang + ".po")
    po = load_check_complete().parse_po(po_path)
    translations = {normalized(e["msgid"]): normalized(e.get("msgstr")) for _, e in po
                    if e["msgid"] and not e["obsolete"] and "fuzzy" not in e["flags"]}

    actions = ET.parse(policy).getroot().findall("action")
    if not actions:
        sys.exit(f"{policy}: no <action>")
    problems = []
    checked = 0
    for action in actions:
        for tag in ("description", "message"):
            english = [e for e in action.findall(tag) if XML_LANG not in e.attrib]
            if len(english) != 1:
                problems.append(f"action {action.get('id')}: {len(english)} untranslated <{tag}>, not 1")
                continue
            msgid = normalized(english[0].text)
            wanted = translations.get(msgid)
            if not wanted:
                problems.append(f"action {action.get('id')}: {po_path} does not translate <{tag}> \"{msgid}\"")
                continue
            found = [normalized(e.text) for e in action.findall(tag) if e.get(XML_LANG) == lang]
            if found != [wanted]:
                problems.append(f"action {action.get('id')}: <{tag} xml:lang=\"{lang}\"> is {found or 'missing'}, "
                                f"not [\"{wanted}\"]")
                continue
            checked += 1
    for problem in problems:
        print(f"{policy}: {problem}")
    if problems:
        if not any(XML_LANG in e.attrib for e in ET.parse(policy).getroot().iter()):
            print(f"{policy} has no translation at all: polkit's ITS rules (polkit.its) were not found when it "
                  "was built (meson's line 'polkit actions: ... (ITS rules: none, untranslated)'); they come "
                  "with libpolkit-gobject-1-dev since polkit 126, with polkitd before, or -Dpolkititsdir=DIR")
        return 1
    print(f"{policy}: the {lang} description and message of all {len(actions)} actions ({checked} texts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
