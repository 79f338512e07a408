# SPDX-License-Identifier: GPL-2.0-or-later
"""A private dbus-daemon for tests and benchmarks, from the one template tests/lib/bus.conf.in (the shell
twin is tests/lib/privatebus.sh)."""

import os
import subprocess

TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'bus.conf.in')
POLICIES = ('open', 'deny-by-default')


def bus_conf(listen, bus_type='system', servicedir='', policy='open', includes=()):
    """The configuration text: listen is a <listen> address (unix:path=..., unix:dir=...), bus_type
    'system', 'session' or '' (none), servicedir '' for none, policy one of POLICIES, includes policy
    files to <include>."""
    if policy not in POLICIES:
        raise ValueError('unknown bus policy %r (%s)' % (policy, ', '.join(POLICIES)))
    values = {'@TYPE@': bus_type, '@LISTEN@': listen, '@SERVICEDIR@': servicedir}
    out = []
    with open(TEMPLATE) as f:
        for line in f:
            if any(line.rstrip().endswith('<!-- %s -->' % p) for p in POLICIES):
                if not line.rstrip().endswith('<!-- %s -->' % policy):
                    continue
                line = line[:line.rindex(' <!--')] + '\n'
            if '@INCLUDE@' in line:
                out += [line.replace('@INCLUDE@', i) for i in includes]
                continue
            key = next((k for k in values if k in line), None)
            if key is not None:
                if not values[key]:
                    continue
                line = line.replace(key, values[key])
            out.append(line)
    return ''.join(out)


def write_bus_conf(path, listen, **kwargs):
    """Writes bus_conf(listen, **kwargs) to path; returns path."""
    with open(path, 'w') as f:
        f.write(bus_conf(listen, **kwargs))
    return path


def start_bus(conf_path, **popen_kwargs):
    """Starts dbus-daemon --nofork on conf_path; returns (Popen, address). The caller ends it."""
    proc = subprocess.Popen(['dbus-daemon', '--config-file=' + conf_path, '--nofork', '--print-address=1'],
                            stdout=subprocess.PIPE, text=True, **popen_kwargs)
    address = proc.stdout.readline().strip()
    if not address:
        proc.kill()
        proc.wait()
        raise RuntimeError('dbus-daemon did not print its address (%s)' % conf_path)
    return proc, address
