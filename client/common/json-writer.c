/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <math.h>
#include <string.h>

#include "json-writer.h"

void json_append_string(GString *out, const char *s)
{
        g_string_append_c(out, '"');
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                switch (*p) {
                case '"':
                        g_string_append(out, "\\\"");
                        break;
                case '\\':
                        g_string_append(out, "\\\\");
                        break;
                case '\n':
                        g_string_append(out, "\\n");
                        break;
                case '\t':
                        g_string_append(out, "\\t");
                        break;
                case '\r':
                        g_string_append(out, "\\r");
                        break;
                default:
                        if (*p < 0x20)
                                g_string_append_printf(out, "\\u%04x", *p);
                        else
                                g_string_append_c(out, (char) *p);
                }
        }
        g_string_append_c(out, '"');
}

static void append_double(GString *out, double d)
{
        char buf[G_ASCII_DTOSTR_BUF_SIZE];

        if (!isfinite(d)) {
                g_string_append(out, "null");
                return;
        }
        g_ascii_dtostr(buf, sizeof(buf), d);
        g_string_append(out, buf);
        /* Keep doubles recognizable as such: 0 -> 0.0. */
        if (!strpbrk(buf, ".eEn"))
                g_string_append(out, ".0");
}

static void append_container(GString *out, GVariant *value)
{
        gboolean is_dict = g_variant_is_of_type(value, G_VARIANT_TYPE("a{s*}"));
        GVariantIter iter;
        GVariant *child;
        gboolean first = TRUE;

        g_string_append_c(out, is_dict ? '{' : '[');
        g_variant_iter_init(&iter, value);
        while ((child = g_variant_iter_next_value(&iter))) {
                if (!first)
                        g_string_append(out, ", ");
                first = FALSE;
                if (is_dict) {
                        g_autoptr(GVariant) key = g_variant_get_child_value(child, 0);
                        g_autoptr(GVariant) val = g_variant_get_child_value(child, 1);
                        json_append_string(out, g_variant_get_string(key, NULL));
                        g_string_append(out, ": ");
                        json_append_variant(out, val);
                } else
                        json_append_variant(out, child);
                g_variant_unref(child);
        }
        g_string_append_c(out, is_dict ? '}' : ']');
}

void json_append_variant(GString *out, GVariant *value)
{
        switch (g_variant_classify(value)) {
        case G_VARIANT_CLASS_BOOLEAN:
                g_string_append(out, g_variant_get_boolean(value) ? "true" : "false");
                break;
        case G_VARIANT_CLASS_BYTE:
                g_string_append_printf(out, "%u", g_variant_get_byte(value));
                break;
        case G_VARIANT_CLASS_INT16:
                g_string_append_printf(out, "%d", g_variant_get_int16(value));
                break;
        case G_VARIANT_CLASS_UINT16:
                g_string_append_printf(out, "%u", g_variant_get_uint16(value));
                break;
        case G_VARIANT_CLASS_INT32:
                g_string_append_printf(out, "%" G_GINT32_FORMAT, g_variant_get_int32(value));
                break;
        case G_VARIANT_CLASS_UINT32:
                g_string_append_printf(out, "%" G_GUINT32_FORMAT, g_variant_get_uint32(value));
                break;
        case G_VARIANT_CLASS_INT64:
                g_string_append_printf(out, "%" G_GINT64_FORMAT, g_variant_get_int64(value));
                break;
        case G_VARIANT_CLASS_UINT64:
                g_string_append_printf(out, "%" G_GUINT64_FORMAT, g_variant_get_uint64(value));
                break;
        case G_VARIANT_CLASS_DOUBLE:
                append_double(out, g_variant_get_double(value));
                break;
        case G_VARIANT_CLASS_STRING:
        case G_VARIANT_CLASS_OBJECT_PATH:
        case G_VARIANT_CLASS_SIGNATURE:
                json_append_string(out, g_variant_get_string(value, NULL));
                break;
        case G_VARIANT_CLASS_VARIANT: {
                g_autoptr(GVariant) inner = g_variant_get_variant(value);
                json_append_variant(out, inner);
                break;
        }
        case G_VARIANT_CLASS_MAYBE:
        case G_VARIANT_CLASS_HANDLE:
                g_string_append(out, "null");
                break;
        case G_VARIANT_CLASS_ARRAY:
        case G_VARIANT_CLASS_TUPLE:
        case G_VARIANT_CLASS_DICT_ENTRY:
                append_container(out, value);
                break;
        }
}
