#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""net.hadess.SensorProxy's bounds on claiming connections per user (bus-sensorproxy.h): another user's
connections beyond SENSOR_PROXY_CLAIMERS_PER_UID_MAX are refused naming the bound, root is still served.
Runs a client as nobody (setpriv), so it needs root; the rest of the proxy's tests: sensorproxy_test.py."""

import json
import os
import subprocess

import testmain  # tests/lib
from sensorproxy_test import SP_IFACE, SP_NAME, SP_PATH, SensorProxyTest

PER_UID_MAX = 8  # SENSOR_PROXY_CLAIMERS_PER_UID_MAX

# As nobody: CONNECTIONS connections, one ClaimAccelerometer each; prints the answers as JSON, then holds
# the connections until its standard input closes.
CLIENT = r'''
import json, sys
from gi.repository import Gio, GLib
address, n = sys.argv[1], int(sys.argv[2])
answers, held = {}, []
for _ in range(n):
    con = Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
        None, None)
    held.append(con)
    try:
        con.call_sync('net.hadess.SensorProxy', '/net/hadess/SensorProxy', 'net.hadess.SensorProxy',
                      'ClaimAccelerometer', None, None, Gio.DBusCallFlags.NONE, 10000, None)
        answers['ok'] = answers.get('ok', 0) + 1
    except GLib.Error as e:
        name = Gio.DBusError.get_remote_error(e)
        answers[name] = answers.get(name, 0) + 1
        answers['message'] = e.message
print(json.dumps(answers), flush=True)
sys.stdin.read()
'''


class SensorProxyLimitsTest(SensorProxyTest):
    def test_claimers_bounded_per_user(self):
        if os.geteuid() != 0:
            self.skipTest('acting as another user (setpriv) needs root')
        self.start_proxy_daemon()
        os.chmod(self.bus_dir, 0o755)  # the bus lets every user in (bus.conf.in); its socket's folder too
        address = os.environ['DBUS_SYSTEM_BUS_ADDRESS']
        client = subprocess.Popen(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups',
                                   '/usr/bin/python3', '-c', CLIENT, address, str(PER_UID_MAX + 4)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            answers = json.loads(client.stdout.readline() or '{}')
            self.assertEqual(answers.get('ok'), PER_UID_MAX, answers)
            self.assertEqual(answers.get('org.freedesktop.DBus.Error.LimitsExceeded'), 4, answers)
            self.assertIn('per-user bound of %d claiming connections' % PER_UID_MAX, answers.get('message', ''))
            self.assertIn('uid 65534', answers['message'])
            # Root is no user the bound counts.
            self.new_connection().proxy(SP_NAME, SP_PATH, SP_IFACE).ClaimAccelerometer()
            self.assertIsNone(self.daemon.poll())
        finally:
            client.stdin.close()
            client.wait(timeout=30)


if __name__ == '__main__':
    testmain.main()
