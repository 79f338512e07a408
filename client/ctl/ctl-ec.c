/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccelctl ec read-row: one raw EC transaction through org.thinkpad.EmbeddedController. */
#include <stdio.h>

#include "accel-json.h"
#include "ctl.h"

#define EC_ROW_BYTES     16
#define EC_ROW_LAST_BYTE (EC_ROW_BYTES - 1)
#define ACTION_EC_RAW    "org.thinkpad.ec.raw"

/* Parses "0x11", "17" or "0o21" as a byte. */
static gboolean parse_byte(const char *text, guint8 *ret)
{
        guint64 value;
        guint base = 10;
        const char *digits = text;

        if (g_str_has_prefix(text, "0x") || g_str_has_prefix(text, "0X")) {
                base = 16;
                digits = text + 2;
        }
        if (!g_ascii_string_to_unsigned(digits, base, 0, G_MAXUINT8, &value, NULL))
                return FALSE;
        *ret = (guint8) value;
        return TRUE;
}

static ExitStatus read_row(Ctl *ctl, char **args, int n_args)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = NULL;
        g_autoptr(GVariant) data = NULL;
        guint8 row[EC_ROW_BYTES] = {0};
        guint16 args_mask = 0;
        const guint8 *bytes;
        gsize n_bytes;
        ExitStatus status;

        if (n_args < 1)
                return ctl_usage_error(
                        _("ec read-row needs at least the command byte, e.g. 'ec read-row 0x11'"));
        if (n_args > EC_ROW_BYTES)
                return ctl_usage_error(_("ec read-row takes at most %d bytes, got %d"), EC_ROW_BYTES,
                                       n_args);

        for (int i = 0; i < n_args; i++) {
                if (g_str_equal(args[i], "-")) {
                        if (i == 0)
                                return ctl_usage_error(
                                        _("ec read-row: byte 0 (the command) cannot be skipped"));
                        continue;
                }
                if (!parse_byte(args[i], &row[i]))
                        return ctl_usage_error(
                                _("ec read-row: byte %d: \"%s\" is not a byte (0..255 or 0x00..0xff)"), i,
                                args[i]);
                args_mask |= (guint16) (1u << i);
        }

        status = ctl_connect(ctl);
        if (status != EXIT_STATUS_OK)
                return status;

        ctl_polkit_agent_open(ctl, ACTION_EC_RAW);
        reply = ctl_call(ctl, EC_OBJECT, EC_INTERFACE, "ReadRow",
                         g_variant_new("(q@ayq)", args_mask,
                                       g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, row, EC_ROW_BYTES, 1),
                                       ctl->data_mask),
                         G_VARIANT_TYPE("(ay)"), &error);
        ctl_polkit_agent_close(ctl);
        if (!reply)
                return ctl_report_error(ctl, _("cannot read the EC row"), error);

        g_variant_get(reply, "(@ay)", &data);
        bytes = g_variant_get_fixed_array(data, &n_bytes, 1);
        if (n_bytes != EC_ROW_BYTES) {
                fprintf(stderr, _("tpaccelctl: the EC row has %zu bytes, expected %d\n"), n_bytes,
                        EC_ROW_BYTES);
                return EXIT_STATUS_FAILURE;
        }

        if (ctl->json) {
                g_autoptr(JsonNode) node = accel_json_from_variant(data);
                g_autofree char *text = accel_json_to_string(node, FALSE);
                printf("%s\n", text);
                return EXIT_STATUS_OK;
        }
        for (gsize i = 0; i < n_bytes; i++) {
                gboolean meaningful = i == 0 || i == EC_ROW_LAST_BYTE || (ctl->data_mask & (1u << i));
                if (meaningful)
                        printf("%s%02x", i ? " " : "", bytes[i]);
                else
                        printf("%s--", i ? " " : "");
        }
        printf("\n");
        return EXIT_STATUS_OK;
}

ExitStatus ctl_ec(Ctl *ctl, char **args, int n_args)
{
        if (n_args < 1)
                return ctl_usage_error(_("ec needs a subcommand: read-row"));
        if (g_str_equal(args[0], "read-row"))
                return read_row(ctl, args + 1, n_args - 1);
        return ctl_usage_error(_("unknown ec subcommand \"%s\" (known: read-row)"), args[0]);
}
