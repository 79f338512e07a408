#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The README's commands and the packaging details a user trips over: commands
that work as written on a root-only Debian 12 (no sudo), a claim example that holds its claim, the
autostart entry's TryExec=, the uninstall steps of a source install and the icon's description."""
import os
import re
import select
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clienttest import PYTHON, TOP_BUILDDIR, TOP_SRCDIR, ClientTestCase, wait_until  # noqa: E402


# The README and the documents for users it links to, where its longer commands moved.
USER_DOCS = ["README.md", "docs/INSTALL.md", "docs/DBUS.md", "docs/REPORTING.md", "docs/HDAPSD.md"]


def readme():
    text = ""
    for path in USER_DOCS:
        with open(os.path.join(TOP_SRCDIR, path)) as f:
            text += f.read() + "\n"
    return text


def code_lines():
    """The lines of the README's shell blocks."""
    return [line for block in re.findall(r"```sh\n(.*?)```", readme(), re.S) for line in block.splitlines()]


class ReadmeTest(ClientTestCase):
    def test_no_sudo_in_commands(self):
        # A root-only Debian 12 has no sudo: the commands are written for root, and say so.
        commands = [line for line in code_lines() if re.match(r"\s*(\S+=\S+ )*sudo ", line)]
        self.assertEqual(commands, [])

    def test_no_release_from_a_new_connection(self):
        # A claim belongs to the connection that made it: a one-shot busctl/gdbus Release or Claim does
        # nothing useful, so the README does not offer them as commands.
        for line in code_lines():
            if line.lstrip().startswith("#"):
                continue
            self.assertNotRegex(line, r"(busctl|gdbus) .*\b(Release|Claim|ClaimAtRate)\b", line)
            self.assertNotRegex(line, r"-m org\.thinkpad\.Accelerometer\.(Release|Claim|ClaimAtRate)\b", line)

    def test_claim_example_holds_the_claim(self):
        # The README's Python example, on a private bus standing in for the system bus: it claims at
        # 4 Hz for as long as it runs, and Ctrl-C ends the claim.
        snippet = re.search(r"^python3 -c '(.*?)'$", readme(), re.S | re.M)
        self.assertIsNotNone(snippet, "the README's claim example")
        self.start_daemon("rest.csv", session=False)
        env = dict(self.env, DBUS_SYSTEM_BUS_ADDRESS=self.bus.address)
        proc = subprocess.Popen([PYTHON, "-c", snippet.group(1)], env=env, stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(proc.stdout.readline().strip(), "claimed; Ctrl-C releases")
            wait_until(lambda: self.bus.accel_property("EffectiveRate") == 4, what="the example's claim")
            self.assertTrue(self.documented_monitor_shows_samples(env), "gdbus monitor shows no Sample")
            proc.send_signal(signal.SIGINT)
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        wait_until(lambda: not self.bus.accel_property("Polling"), what="the claim to end with the example")

    def documented_monitor_shows_samples(self, env, seconds=10):
        """Whether the documents' `gdbus monitor` command prints a Sample signal within seconds (the
        example subscribed: tpacceld sends Sample only while someone did)."""
        line = next(line for line in code_lines() if line.startswith("gdbus monitor "))
        argv = line.split("#")[0].split()
        monitor = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        deadline = time.monotonic() + seconds
        try:
            os.set_blocking(monitor.stdout.fileno(), False)
            while time.monotonic() < deadline:
                if select.select([monitor.stdout], [], [], 0.5)[0]:
                    if any(".Sample (" in line for line in monitor.stdout.readlines()):
                        return True
            return False
        finally:
            monitor.kill()
            monitor.wait()

    def test_autostart_has_tryexec(self):
        # After `apt-get remove tpaccel-tray` the autostart entry stays (a conffile): TryExec= makes a
        # login skip it instead of trying to start a tray that is gone.
        for path in ["client/tpaccel-tray.desktop", "client/autostart/tpaccel-tray.desktop"]:
            with open(os.path.join(TOP_BUILDDIR, path)) as f:
                self.assertRegex(f.read(), r"(?m)^TryExec=tpaccel-tray$", path)

    def test_uninstall_steps_and_icon_words(self):
        text = readme()
        self.assertIn("install-log.txt", text)
        self.assertIn("rm -rf /var/lib/tpaccel", text)
        self.assertNotIn("crossed out", text)
        self.assertIn('a grey laptop with a "?"', text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
