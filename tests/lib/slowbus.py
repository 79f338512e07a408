# SPDX-License-Identifier: GPL-2.0-or-later
"""A slow bus daemon for one client: a proxy between that client (tpacceld, given --address=proxy.address)
and a real dbus-daemon that holds back the bus driver's answers (method returns and errors sent by
org.freedesktop.DBus): until release() (hold(True)), or each for a given time (delay(seconds)). Everything
else passes at once and unchanged, file descriptors included (so a signal of the driver, NameOwnerChanged,
can overtake a held answer), and the client sees a bus whose driver is slow to answer, as a dbus-daemon
kept busy by other clients is. Threads, no GLib: the test's main loop stays free.

    proxy = SlowBus(bus_address, directory)
    proxy.hold(True); ...; proxy.wait_held(1); ...; proxy.release()
    proxy.close()"""

import os
import socket
import struct
import threading
import time

DRIVER = 'org.freedesktop.DBus'
METHOD_RETURN, ERROR = 2, 3
FIELD_SENDER = 7


def _unix_path(address):
    """The socket of a unix: bus address (path= or abstract=)."""
    for part in address.split(';')[0].split(':', 1)[1].split(','):
        key, _, value = part.partition('=')
        if key == 'path':
            return value
        if key == 'abstract':
            return '\0' + value
    raise ValueError('not a unix path or abstract address: %s' % address)


def _align(n, a):
    return (n + a - 1) // a * a


def _message_length(buf):
    """The length of the message at the start of buf, or None while its fixed header is incomplete."""
    if len(buf) < 16:
        return None
    e = '<' if buf[0:1] == b'l' else '>'
    body_len, _, fields_len = struct.unpack(e + 'III', buf[4:16])
    return _align(16 + fields_len, 8) + body_len


def _sender_and_type(msg):
    e = '<' if msg[0:1] == b'l' else '>'
    mtype = msg[1]
    (fields_len,) = struct.unpack(e + 'I', msg[12:16])
    pos, end = 16, 16 + fields_len
    while pos < end:
        pos = _align(pos, 8)
        code = msg[pos]
        siglen = msg[pos + 1]
        sig = msg[pos + 2:pos + 2 + siglen].decode()
        pos += 3 + siglen
        if sig in ('s', 'o'):
            pos = _align(pos, 4)
            (n,) = struct.unpack(e + 'I', msg[pos:pos + 4])
            value = msg[pos + 4:pos + 4 + n].decode()
            pos += 5 + n
        elif sig == 'g':
            n = msg[pos]
            value = msg[pos + 1:pos + 1 + n].decode()
            pos += 2 + n
        elif sig in ('u', 'h'):
            pos = _align(pos, 4)
            value = None
            pos += 4
        else:
            raise ValueError('unexpected header field signature %r' % sig)
        if code == FIELD_SENDER:
            return value, mtype
    return None, mtype


def _send_all(sock, data, fds=()):
    if fds:
        n = sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack('%di' % len(fds), *fds))])
        for fd in fds:
            os.close(fd)
        data = data[n:]
    if data:
        sock.sendall(data)


def _recv(sock):
    """Bytes and passed fds, or (b'', []) at the end."""
    data, anc, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(253 * 4))
    fds = []
    for level, kind, payload in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds += list(struct.unpack('%di' % (len(payload) // 4), payload[:len(payload) // 4 * 4]))
    return data, fds


class SlowBus:
    def __init__(self, bus_address, directory):
        self.bus_path = _unix_path(bus_address)
        path = os.path.join(directory, 'slowbus')
        self.address = 'unix:path=' + path
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(4)
        self.lock = threading.Condition()
        self.holding = False
        self.delay_s = 0.0
        self.held = []  # (due time or None, bytes, client socket) in order
        self.n_held_total = 0
        self.closed = False
        self.socks = []
        self.threads = [threading.Thread(target=self._accept, daemon=True),
                        threading.Thread(target=self._release_due, daemon=True)]
        for t in self.threads:
            t.start()

    # Control

    def hold(self, on):
        """True: the driver's answers wait for release(); False: they pass again (release() the held)."""
        with self.lock:
            self.holding = bool(on)
        if not on:
            self.release()

    def delay(self, seconds):
        """Each driver answer from now on is sent `seconds` after it came (0: at once)."""
        with self.lock:
            self.delay_s = float(seconds)

    def held_count(self):
        with self.lock:
            return len(self.held)

    def wait_held(self, n, timeout=15):
        """Waits until n answers are held; False if they were not within timeout."""
        with self.lock:
            return self.lock.wait_for(lambda: len(self.held) >= n, timeout)

    def release(self):
        """Sends every held answer, in the order they came."""
        with self.lock:
            held, self.held = self.held, []
            for _, data, client in held:
                self._forward(client, data)
            self.lock.notify_all()

    def close(self):
        with self.lock:
            self.closed = True
            self.held = []
            self.lock.notify_all()
        for s in [self.listener] + self.socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    # The pumps

    def _forward(self, client, data, fds=()):
        try:
            _send_all(client, data, fds)
        except OSError:
            pass

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(self.bus_path)
            self.socks += [client, upstream]
            threading.Thread(target=self._pump_up, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump_down, args=(upstream, client), daemon=True).start()

    def _pump_up(self, client, upstream):
        """Client to bus, unchanged (the authentication's lines, then messages)."""
        try:
            while True:
                data, fds = _recv(client)
                if not data:
                    break
                _send_all(upstream, data, fds)
        except OSError:
            pass
        try:
            upstream.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _pump_down(self, upstream, client):
        """Bus to client: the authentication's lines at once; messages one by one, the driver's answers
        held or delayed."""
        buf = b''
        fds = []
        try:
            while True:
                data, more = _recv(upstream)
                if not data:
                    break
                buf += data
                fds += more
                while buf:
                    if buf[0:1] not in (b'l', b'B'):  # an authentication line
                        end = buf.find(b'\r\n')
                        if end < 0:
                            break
                        chunk, buf = buf[:end + 2], buf[end + 2:]
                        with self.lock:
                            self._forward(client, chunk)
                        continue
                    n = _message_length(buf)
                    if n is None or len(buf) < n:
                        break
                    msg, buf = buf[:n], buf[n:]
                    self._pass(client, msg, fds)
                    fds = []
        except OSError:
            pass
        try:
            client.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _pass(self, client, msg, fds):
        sender, mtype = _sender_and_type(msg)
        with self.lock:
            if sender == DRIVER and mtype in (METHOD_RETURN, ERROR) and (self.holding or self.delay_s > 0):
                due = None if self.holding else time.monotonic() + self.delay_s
                self.held.append((due, msg, client))
                self.n_held_total += 1
                self.lock.notify_all()
                return
            self._forward(client, msg, fds)

    def _release_due(self):
        while True:
            with self.lock:
                if self.closed:
                    return
                now = time.monotonic()
                while self.held and self.held[0][0] is not None and self.held[0][0] <= now:
                    _, data, client = self.held.pop(0)
                    self._forward(client, data)
                self.lock.wait(0.005)
