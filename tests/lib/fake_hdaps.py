# SPDX-License-Identifier: GPL-2.0-or-later
"""A fake machine below a directory, for tpacceld --sysroot=DIR: DMI, /proc/ioports, /sys/module and the
kernel hdaps driver's sysfs device in either flavour. Never touches the real /sys.

Layout (what service/ec/ec-detect.c and service/backend/kernel-sysfs.c read):
  DIR/sys/class/dmi/id/{board_vendor,product_version,product_name}
  DIR/proc/ioports
  DIR/sys/module/NAME/                      a loaded module
  DIR/sys/devices/platform/hdaps/ATTR       the driver's attributes
  DIR/dev/port                              a plain file standing in for /dev/port

Attribute sets, from the drivers' sources (docs/PROTOCOL.md, the notes):
  mainline (drivers/platform/x86/hdaps.c): position variance temp1 temp2 keyboard_activity
           mouse_activity calibrate invert (0..3: bit 0 negates X, bit 1 negates Y)
  tp_smapi (0.43): position temp1 keyboard_activity mouse_activity calibrate invert (0..7 axis codes)
           sampling_rate oversampling_ratio running_avg_filter_order; fake_data_mode only before 0.38"""

import os
import shutil
import struct
import time

HDAPS = 'sys/devices/platform/hdaps'
PORT_BYTES = 0x10000
EV_SYN, EV_ABS, ABS_X, ABS_Y = 0, 3, 0, 1
INPUT_EVENT = struct.Struct('qqHHi')  # struct input_event on 64-bit: timeval, type, code, value


class FakeMachine:
    def __init__(self, root):
        self.root = root
        os.makedirs(root, exist_ok=True)
        self.write('proc/ioports', '0000-0cf7 : PCI Bus 0000:00\n0cf8-0cff : PCI conf1\n')

    def path(self, rel):
        return os.path.join(self.root, rel)

    def write(self, rel, text):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, 'w') as f:
            f.write(text)

    def read(self, rel):
        with open(self.path(rel)) as f:
            return f.read()

    # DMI

    def thinkpad(self, vendor='LENOVO', model='ThinkPad T60'):
        self.write('sys/class/dmi/id/board_vendor', vendor + '\n')
        self.write('sys/class/dmi/id/product_version', model + '\n')
        self.write('sys/class/dmi/id/product_name', '2007XYZ\n')
        return self

    def other_laptop(self):
        self.write('sys/class/dmi/id/board_vendor', 'Dell Inc.\n')
        self.write('sys/class/dmi/id/product_version', 'Latitude 7490\n')
        self.write('sys/class/dmi/id/product_name', 'Latitude 7490\n')
        return self

    # Ports and modules

    def claim_ports(self, owner, start=0x1600, end=0x161f):
        self.write('proc/ioports', self.read('proc/ioports') + '%04x-%04x : %s\n' % (start, end, owner))

    def load_module(self, name):
        os.makedirs(self.path('sys/module/' + name), exist_ok=True)

    def unload_module(self, name):
        shutil.rmtree(self.path('sys/module/' + name), ignore_errors=True)

    def dev_port(self):
        self.write('dev/port', '\0' * PORT_BYTES)

    # The hdaps device

    def attr(self, name, text):
        self.write(os.path.join(HDAPS, name), text + '\n')

    def get_attr(self, name):
        return self.read(os.path.join(HDAPS, name)).strip()

    def set_position(self, x, y):
        self.attr('position', '(%d,%d)' % (x, y))

    def mainline(self, position=(-498, -439), invert=0, temp=34, load=True):
        """The mainline driver as loaded by 'modprobe hdaps' (claims 0x1600-0x162f)."""
        self.set_position(*position)
        self.attr('variance', '(0,0)')
        self.attr('temp1', str(temp))
        self.attr('temp2', str(temp + 1))
        self.attr('keyboard_activity', '0')
        self.attr('mouse_activity', '0')
        self.attr('calibrate', '(%d,%d)' % position)
        self.attr('invert', str(invert))
        if load:
            self.load_module('hdaps')
            self.claim_ports('hdaps', 0x1600, 0x162f)
        return self

    def tp_smapi(self, position=(-498, -439), invert=5, temp=34, rate=50, ratio=4, order=2, fake_data_mode=None,
                 load=True):
        """tp_smapi's hdaps (values from hdapsd's recorded tests/hdaps.umockdev, 2014)."""
        self.set_position(*position)
        self.attr('temp1', str(temp))
        self.attr('keyboard_activity', '0')
        self.attr('mouse_activity', '0')
        self.attr('calibrate', '(%d,%d)' % position)
        self.attr('invert', str(invert))
        self.attr('sampling_rate', str(rate))
        self.attr('oversampling_ratio', str(ratio))
        self.attr('running_avg_filter_order', str(order))
        if fake_data_mode is not None:
            self.attr('fake_data_mode', '1' if fake_data_mode else '0')
        if load:
            self.load_module('thinkpad_ec')
            self.load_module('hdaps')
            self.claim_ports('thinkpad_ec')
        return self

    def remove_driver(self):
        """modprobe -r: the device, the modules and the ioports entries go away."""
        shutil.rmtree(self.path(HDAPS), ignore_errors=True)
        for m in ('hdaps', 'thinkpad_ec', 'tp_smapi', 'hdaps_ec'):
            self.unload_module(m)
        self.write('proc/ioports', '0000-0cf7 : PCI Bus 0000:00\n0cf8-0cff : PCI conf1\n')

    # tp_smapi's raw input device

    def raw_input_device(self, number=7):
        """sys/class/input/inputN (name, phys) with its eventN child, and dev/input/eventN as a FIFO that
        the test writes struct input_event records into. Returns the FIFO's write end (an fd)."""
        base = 'sys/class/input/input%d' % number
        self.write(base + '/name', 'ThinkPad HDAPS accelerometer data\n')
        self.write(base + '/phys', 'hdaps/input1\n')
        os.makedirs(self.path('%s/event%d' % (base, number)), exist_ok=True)
        node = self.path('dev/input/event%d' % number)
        os.makedirs(os.path.dirname(node), exist_ok=True)
        os.mkfifo(node)
        return os.open(node, os.O_RDWR | os.O_NONBLOCK)  # O_RDWR: never blocks, never sees EOF

    @staticmethod
    def send_position(fd, x, y):
        t = time.time()
        sec, usec = int(t), int((t % 1) * 1e6)
        os.write(fd, INPUT_EVENT.pack(sec, usec, EV_ABS, ABS_X, x) + INPUT_EVENT.pack(sec, usec, EV_ABS, ABS_Y, y) +
                 INPUT_EVENT.pack(sec, usec, EV_SYN, 0, 0))
