#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""data/icons as a theme folder of its own: what scripts/demo.sh --tray sends as the item's IconThemePath.
A panel that replaces its icon theme's search path with it (waybar) looks the icons up as GTK does here;
without hicolor/index.theme it found none and showed a grey placeholder."""
import configparser
import os
import unittest

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

ICONS = os.path.join(os.environ["TOP_SRCDIR"], "data", "icons")
HICOLOR = os.path.join(ICONS, "hicolor")


def icon_files():
    """{folder relative to hicolor: [icon names]} of every icon in the tree."""
    found = {}
    for folder, _, files in os.walk(HICOLOR):
        names = [f[:-4] for f in files if f.endswith(".svg")]
        if names:
            found[os.path.relpath(folder, HICOLOR)] = sorted(names)
    return found


class IconThemeTest(unittest.TestCase):
    def test_every_icon_found_through_the_theme_path_alone(self):
        theme = Gtk.IconTheme.new()
        theme.set_search_path([ICONS])
        theme.set_custom_theme("hicolor")
        names = [name for names in icon_files().values() for name in names]
        self.assertIn("tpaccel", names)
        self.assertIn("tpaccel-service-missing", names)
        for name in names:
            for size in (16, 22, 24, 48):
                info = theme.lookup_icon(name, size, 0)
                self.assertIsNotNone(info, f"{name} at {size} px")
                self.assertTrue(info.get_filename().startswith(HICOLOR + "/"), info.get_filename())

    def test_index_lists_every_icon_folder(self):
        index = configparser.ConfigParser(interpolation=None)
        index.read(os.path.join(HICOLOR, "index.theme"))
        directories = index["Icon Theme"]["Directories"].split(",")
        self.assertEqual(sorted(directories), sorted(icon_files()))
        for d in directories:
            self.assertEqual(index[d]["Type"], "Scalable", d)
            self.assertTrue(index[d]["Context"], d)


if __name__ == "__main__":
    unittest.main(verbosity=2)
