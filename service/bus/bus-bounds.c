/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bounded echoes of what sd-bus answers by itself. For org.freedesktop.DBus.Properties and
 * unknown objects, sd-bus replies with the caller's strings in the message ("Unknown interface '%s'.",
 * "Unknown interface %s or property %s.", "Unknown object '%s'."), whatever their length: a caller's
 * 30 MiB argument became a 30 MiB error, more than once in memory. A filter sees every message before
 * sd-bus dispatches it and refuses those arguments first, quoted to 16 characters like every message of
 * ours. Interface and property names are D-Bus names (at most 255 characters, the specification), and
 * our object paths are short, so nothing a correct caller sends is refused. sd-bus's other echo, "Unknown
 * method '%s' on interface '%s'.", quotes the message header's member and interface, which the bus
 * already limits to 255 characters; a path over 64 KiB sd-bus drops unanswered. */
#include <string.h>

#include "bus-bounds.h"
#include "bus-face.h"
#include "log.h"
#include "strutil.h"

#define BUS_NAME_MAX 255 /* the D-Bus specification's limit for interface and member names */

static int on_call(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        char excerpt[STR_EXCERPT_SIZE];
        const char *path, *signature;
        int r;

        if (!sd_bus_message_is_method_call(m, NULL, NULL))
                return 0;

        path = sd_bus_message_get_path(m);
        if (path && strlen(path) > BUS_NAME_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_OBJECT,
                                         "Unknown object '%s' (%zu characters)", str_excerpt(path, excerpt),
                                         strlen(path));

        if (!sd_bus_message_is_method_call(m, "org.freedesktop.DBus.Properties", NULL))
                return 0;
        /* Get(ss), GetAll(s), Set(ssv): the interface, then the property. */
        signature = sd_bus_message_get_signature(m, true);
        for (unsigned i = 0; signature && i < 2 && signature[i] == 's'; i++) {
                const char *name;

                r = sd_bus_message_read_basic(m, 's', &name);
                if (r < 0)
                        break; /* sd-bus will say what is wrong with the message */
                if (strlen(name) > BUS_NAME_MAX)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                                 "%s name '%s' is too long (%zu characters, at most %d)",
                                                 i == 0 ? "The interface" : "The property",
                                                 str_excerpt(name, excerpt), strlen(name), BUS_NAME_MAX);
        }
        r = sd_bus_message_rewind(m, true);
        if (r < 0)
                return r;
        return 0; /* sd-bus goes on with it */
}

int bus_bounds_register(BusFace *f)
{
        int r = sd_bus_add_filter(f->bus, NULL, on_call, f);
        if (r < 0)
                return log_error_errno(r, "Failed to add the message filter that bounds echoes: %m");
        return 0;
}
