# SPDX-License-Identifier: GPL-2.0-or-later
"""A fake sysfs tree for disk protection tests (tpacceld --sysfs-root=DIR), never a real disk.

The layout is what the daemon reads (service/motion/disk-protect.h):
  DIR/block/NAME/queue/rotational     "1" spinning, "0" solid state
  DIR/block/NAME/removable            "0" fixed, "1" removable
  DIR/block/NAME/device/unload_heads  present only on ATA disks that can park (the daemon writes it)

standard_disks() makes the four cases the tests need:
  sda      rotational, fixed, with unload_heads: the only one that can be protected
  nvme0n1  solid state (rotational 0)
  sdc      removable (a USB disk)
  sdd      rotational and fixed but without unload_heads (a SCSI/USB bridge)"""

import os

UNPARKED = '0'


class FakeSysfs:
    def __init__(self, root):
        self.root = root
        os.makedirs(os.path.join(root, 'block'), exist_ok=True)

    def _write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text + '\n')

    def add_disk(self, name, rotational=True, removable=False, unload_heads=True, model='FAKE DISK'):
        self._write('block/%s/queue/rotational' % name, '1' if rotational else '0')
        self._write('block/%s/removable' % name, '1' if removable else '0')
        self._write('block/%s/device/model' % name, model)
        if unload_heads:
            self._write('block/%s/device/unload_heads' % name, UNPARKED)

    def standard_disks(self):
        self.add_disk('sda', model='FAKE HDD 2.5in')
        self.add_disk('nvme0n1', rotational=False, model='FAKE NVME SSD')
        self.add_disk('sdc', removable=True, model='FAKE USB DISK')
        self.add_disk('sdd', unload_heads=False, model='FAKE SCSI DISK')
        return self

    def unload_heads_path(self, name):
        return os.path.join(self.root, 'block', name, 'device', 'unload_heads')

    def unload_heads(self, name):
        """The attribute's text as the daemon left it, without the newline."""
        with open(self.unload_heads_path(name)) as f:
            return f.read().strip()

    def set_unload_heads(self, name, text):
        with open(self.unload_heads_path(name), 'w') as f:
            f.write(text + '\n')

    def remove_disk(self, name):
        for dirpath, dirnames, filenames in os.walk(os.path.join(self.root, 'block', name), topdown=False):
            for n in filenames:
                os.unlink(os.path.join(dirpath, n))
            os.rmdir(dirpath)
