# SPDX-License-Identifier: GPL-2.0-or-later
"""A pointer for a headless wlroots compositor (sway) that has no input device: a Wayland client of its
own, speaking the wire protocol on the compositor's socket, that makes a zwlr_virtual_pointer_v1 (the
wlr-protocols virtual pointer, which sway offers to every client) and moves and clicks it. sway's seat
then has a pointer, and the surface under it (waybar, a menu) gets real wl_pointer enter, motion and
button events, as from a mouse. `swaymsg seat ... cursor` cannot do this: without a pointer device no
client gets a wl_pointer.

The wire protocol (wayland.freedesktop.org/docs/html/ch04.html): a message is the object's id (u32), the
message size in bytes (high 16 bits) and the opcode (low 16 bits), then its arguments, each padded to 4
bytes; a string is its length with the NUL, then the bytes."""
import os
import socket
import struct
import time

BTN_LEFT, BTN_RIGHT = 0x110, 0x111  # linux/input-event-codes.h
MANAGER = "zwlr_virtual_pointer_manager_v1"
# Request opcodes, in the order the protocols list them.
DISPLAY_SYNC, DISPLAY_GET_REGISTRY, REGISTRY_BIND = 0, 1, 0
MANAGER_CREATE_VIRTUAL_POINTER = 0
POINTER_MOTION_ABSOLUTE, POINTER_BUTTON, POINTER_FRAME, POINTER_DESTROY = 1, 2, 4, 8
# Events.
DISPLAY_ERROR, REGISTRY_GLOBAL, CALLBACK_DONE = 0, 0, 0


def _string(s):
    data = s.encode() + b"\0"
    return struct.pack("=I", len(data)) + data + b"\0" * (-len(data) % 4)


class VirtualPointer:
    """A pointer on the compositor at env's WAYLAND_DISPLAY (in its XDG_RUNTIME_DIR), over an output
    layout of width x height. Raises RuntimeError when the compositor offers no virtual pointer or
    answers with a protocol error."""

    def __init__(self, env, width, height):
        self.width, self.height = width, height
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(os.path.join(env["XDG_RUNTIME_DIR"], env["WAYLAND_DISPLAY"]))
        self.next_id, self.buffer = 2, b""  # 1 is wl_display
        registry = self.new_id()
        self.send(1, DISPLAY_GET_REGISTRY, struct.pack("=I", registry))
        globals_ = {}
        for obj, opcode, args in self.roundtrip():
            if obj == registry and opcode == REGISTRY_GLOBAL:
                name, length = struct.unpack_from("=II", args)
                globals_[args[8:8 + length - 1].decode()] = name
        if MANAGER not in globals_:
            raise RuntimeError(f"the compositor offers no {MANAGER}")
        manager = self.new_id()
        self.send(registry, REGISTRY_BIND, struct.pack("=I", globals_[MANAGER]) + _string(MANAGER) +
                  struct.pack("=II", 1, manager))
        self.pointer = self.new_id()
        self.send(manager, MANAGER_CREATE_VIRTUAL_POINTER, struct.pack("=II", 0, self.pointer))  # the default seat
        self.roundtrip()

    def new_id(self):
        self.next_id += 1
        return self.next_id - 1

    def send(self, obj, opcode, args=b""):
        self.sock.sendall(struct.pack("=II", obj, (8 + len(args)) << 16 | opcode) + args)

    def roundtrip(self):
        """Waits until the compositor has handled every request sent so far; returns the events it sent
        meanwhile as (object, opcode, arguments)."""
        callback = self.new_id()
        self.send(1, DISPLAY_SYNC, struct.pack("=I", callback))
        events = []
        while True:
            while len(self.buffer) < 8 or len(self.buffer) < struct.unpack_from("=I", self.buffer, 4)[0] >> 16:
                data = self.sock.recv(65536)
                if not data:
                    raise RuntimeError("the compositor closed the connection")
                self.buffer += data
            obj, word = struct.unpack_from("=II", self.buffer)
            size = word >> 16
            args, self.buffer = self.buffer[8:size], self.buffer[size:]
            if obj == 1 and word & 0xFFFF == DISPLAY_ERROR:
                _, code, length = struct.unpack_from("=III", args)
                raise RuntimeError(f"Wayland protocol error {code}: {args[12:12 + length - 1].decode()}")
            if obj == callback and word & 0xFFFF == CALLBACK_DONE:
                return events
            events.append((obj, word & 0xFFFF, args))

    def stamp(self):
        return int(time.monotonic() * 1000) & 0xFFFFFFFF

    def move_to(self, x, y):
        """Moves the pointer to (x, y) of the layout."""
        self.send(self.pointer, POINTER_MOTION_ABSOLUTE, struct.pack("=IIIII", self.stamp(), x, y, self.width,
                                                                      self.height))
        self.send(self.pointer, POINTER_FRAME)
        self.roundtrip()

    def click(self, button=BTN_LEFT):
        """Presses and releases button where the pointer is."""
        for state in (1, 0):
            self.send(self.pointer, POINTER_BUTTON, struct.pack("=III", self.stamp(), button, state))
            self.send(self.pointer, POINTER_FRAME)
            self.roundtrip()

    def close(self):
        try:
            self.send(self.pointer, POINTER_DESTROY)
            self.roundtrip()
        except OSError:
            pass
        self.sock.close()
