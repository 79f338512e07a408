/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The client side of AcquireStream() (accel-stream.h): one GUnixFDList call, then a g_unix_fd_add()
 * watch reading one record per read(). */

#include <errno.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>
#include <glib-unix.h>

#include "accel-bus.h"
#include "accel-stream.h"

struct AccelStream {
        int fd;
        guint watch;
        AccelStreamFunc func;
        gpointer userdata;
};

static void stream_ended(AccelStream *s)
{
        s->watch = 0;
        s->func(NULL, s->userdata);
}

static gboolean on_readable(int fd, GIOCondition condition, gpointer userdata)
{
        AccelStream *s = userdata;
        AccelStreamRecord record;
        ssize_t n;

        /* Everything queued, then the hang-up: a read() of 0 says the daemon closed its end. */
        n = read(fd, &record, sizeof(record));
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return G_SOURCE_CONTINUE;
        if (n != (ssize_t) sizeof(record)) {
                stream_ended(s);
                return G_SOURCE_REMOVE;
        }
        s->func(&record, s->userdata);
        return G_SOURCE_CONTINUE;
}

AccelStream *accel_stream_acquire(GDBusConnection *bus, AccelStreamFunc func, gpointer userdata,
                                  GError **error)
{
        g_autoptr(GUnixFDList) fds = NULL;
        g_autoptr(GVariant) reply = NULL;
        g_autofree AccelStream *s = NULL;
        gint32 index;
        guint32 record_size;

        reply = g_dbus_connection_call_with_unix_fd_list_sync(
                bus, ACCEL_BUS_NAME, ACCEL_OBJECT, ACCEL_INTERFACE, "AcquireStream", NULL,
                G_VARIANT_TYPE("(hu)"), G_DBUS_CALL_FLAGS_NONE, ACCEL_CALL_TIMEOUT_MS, NULL, &fds, NULL,
                error);
        if (!reply)
                return NULL;
        g_variant_get(reply, "(hu)", &index, &record_size);
        s = g_new0(AccelStream, 1);
        s->fd = fds ? g_unix_fd_list_get(fds, index, error) : -1;
        if (s->fd < 0) {
                if (!fds)
                        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                                    "AcquireStream answered without a file descriptor");
                return NULL;
        }
        if (record_size != sizeof(AccelStreamRecord)) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                            "the stream's records are %u bytes, this client reads %zu", record_size,
                            sizeof(AccelStreamRecord));
                close(s->fd);
                return NULL;
        }
        if (!g_unix_set_fd_nonblocking(s->fd, TRUE, error)) {
                close(s->fd);
                return NULL;
        }
        s->func = func;
        s->userdata = userdata;
        s->watch = g_unix_fd_add(s->fd, G_IO_IN | G_IO_HUP | G_IO_ERR, on_readable, s);
        return g_steal_pointer(&s);
}

void accel_stream_free(AccelStream *s)
{
        if (!s)
                return;
        if (s->watch)
                g_source_remove(s->watch);
        close(s->fd);
        g_free(s);
}
