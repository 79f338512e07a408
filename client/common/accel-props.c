/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <gio/gio.h>

#include "accel-props.h"

#define USEC_PER_SEC 1000000.0

static const AccelProperty properties[] = {
        {"has-accelerometer", "HasAccelerometer", "b", "Accelerometer", NULL, NULL,
         "an accelerometer was found and initialized"},
        {"backend", "Backend", "s", "Backend", NULL, NULL, "how the EC is reached"},
        {"backend-reason", "BackendReason", "s", "Backend reason", NULL, NULL,
         "why this backend was chosen"},
        {"model", "Model", "s", "Model", NULL, NULL, "the machine's DMI product version"},
        {"axis-code", "AxisCode", "u", "Axis code", NULL, NULL, "axis orientation code 0..7"},
        {"position", "Position", "(ii)", "Position", "counts", NULL, "latest readout x y"},
        {"rest-position", "RestPosition", "(ii)", "Rest position", "counts", NULL, "calibrated rest x y"},
        {"temperature", "Temperature", "i", "Temperature", "°C", NULL, "sensor temperature"},
        {"keyboard-activity", "KeyboardActivity", "b", "Keyboard activity", NULL, NULL,
         "keyboard used within 100 ms"},
        {"mouse-activity", "MouseActivity", "b", "Mouse activity", NULL, NULL, "pointer used within 100 ms"},
        {"sampling-rate", "SamplingRate", "u", "Sampling rate", "Hz", "SetSamplingRate",
         "readouts per second, 1..1000"},
        {"oversampling-ratio", "OversamplingRatio", "u", "Oversampling ratio", NULL, "SetOversamplingRatio",
         "EC samples per readout"},
        {"filter-order", "FilterOrder", "u", "Filter order", NULL, "SetFilterOrder",
         "EC running-average filter order, 1..8"},
        {"fake-data-mode", "FakeDataMode", "b", "Fake data mode", NULL, "SetFakeDataMode",
         "EC self-test counter instead of data"},
        {"invert", "Invert", "b", "Invert", NULL, "SetInvert", "negate both axes"},
        {"claimed", "Claimed", "b", "Polling", NULL, NULL, "continuous polling is running"},
        {"suspended", "Suspended", "b", "Suspended", NULL, NULL, "the machine is asleep"},
        {"pitch", "Pitch", "d", "Pitch", "°", NULL, "degrees, front edge up is positive"},
        {"roll", "Roll", "d", "Roll", "°", NULL, "degrees, right side up is positive"},
        {"orientation", "Orientation", "s", "Orientation", NULL, NULL,
         "normal, bottom-up, left-up, right-up"},
        {"tilt-step", "TiltStep", "d", "Tilt step", "°", "SetTiltStep", "Tilt signal granularity, 0.1..45"},
        {"shock-sensitivity", "ShockSensitivity", "d", "Shock sensitivity", NULL, "SetShockSensitivity",
         "0.1 (hard shocks only) .. 10"},
        {"shock-active", "ShockActive", "b", "Shock active", NULL, NULL, "a shock is in progress"},
        {"shock-hold-ms", "ShockHoldMs", "u", "Shock hold", "ms", NULL, "quiet time that ends a shock"},
        {"shock-count", "ShockCount", "t", "Shocks", NULL, NULL, "shocks since the daemon started"},
        {"last-shock", "LastShock", "(td)", "Last shock", NULL, NULL,
         "time and magnitude of the last shock"},
        {"vibration-level", "VibrationLevel", "d", "Vibration level", "g", NULL, "background motion"},
        {"protected-disks", "ProtectedDisks", "as", "Protected disks", NULL, "SetProtectedDisks",
         "disks parked on a shock"},
        {"parked", "Parked", "b", "Heads parked", NULL, NULL, "the protected disks are parked now"},
        {"park-count", "ParkCount", "t", "Parks", NULL, NULL, "head parks since the daemon started"},
        {"protection-state", "ProtectionState", "s", "Protection", NULL, NULL, "off, armed, parked, paused"},
        {"paused-until", "PausedUntil", "t", "Paused until", NULL, NULL, "when a Pause ends"},
};

const AccelProperty *accel_properties(size_t *ret_n)
{
        *ret_n = G_N_ELEMENTS(properties);
        return properties;
}

const AccelProperty *accel_property_by_key(const char *key)
{
        for (size_t i = 0; i < G_N_ELEMENTS(properties); i++)
                if (g_str_equal(properties[i].key, key))
                        return &properties[i];
        return NULL;
}

/* CLOCK_MONOTONIC microseconds as "N.N s ago" / "in N s" relative to now. */
static char *format_monotonic(guint64 usec)
{
        double delta = ((double) usec - (double) g_get_monotonic_time()) / USEC_PER_SEC;

        if (usec == 0)
                return g_strdup("never");
        if (delta <= 0)
                return g_strdup_printf("%.1f s ago", -delta);
        return g_strdup_printf("in %.1f s", delta);
}

char *accel_property_format(const AccelProperty *prop, GVariant *value, gboolean with_unit)
{
        g_autofree char *text = NULL;

        if (!g_variant_is_of_type(value, G_VARIANT_TYPE(prop->signature)))
                return g_strdup_printf("(unexpected type %s)", g_variant_get_type_string(value));

        if (g_str_equal(prop->dbus_name, "LastShock")) {
                guint64 usec;
                double magnitude;

                g_variant_get(value, "(td)", &usec, &magnitude);
                if (usec == 0)
                        return g_strdup("never");
                g_autofree char *when = format_monotonic(usec);
                return g_strdup_printf("%.2f g, %s", magnitude, when);
        }
        if (g_str_equal(prop->dbus_name, "PausedUntil")) {
                guint64 usec = g_variant_get_uint64(value);
                return usec == 0 ? g_strdup("not paused") : format_monotonic(usec);
        }

        switch (g_variant_classify(value)) {
        case G_VARIANT_CLASS_BOOLEAN:
                text = g_strdup(g_variant_get_boolean(value) ? "yes" : "no");
                break;
        case G_VARIANT_CLASS_STRING:
                text = g_strdup(g_variant_get_string(value, NULL));
                if (with_unit && text[0] == '\0')
                        return g_strdup("(none)");
                break;
        case G_VARIANT_CLASS_UINT32:
                text = g_strdup_printf("%" G_GUINT32_FORMAT, g_variant_get_uint32(value));
                break;
        case G_VARIANT_CLASS_INT32:
                text = g_strdup_printf("%" G_GINT32_FORMAT, g_variant_get_int32(value));
                break;
        case G_VARIANT_CLASS_UINT64:
                text = g_strdup_printf("%" G_GUINT64_FORMAT, g_variant_get_uint64(value));
                break;
        case G_VARIANT_CLASS_DOUBLE:
                text = g_strdup_printf("%.2f", g_variant_get_double(value));
                break;
        case G_VARIANT_CLASS_TUPLE: {
                gint32 x, y;
                g_variant_get(value, "(ii)", &x, &y);
                text = g_strdup_printf("%d %d", x, y);
                break;
        }
        case G_VARIANT_CLASS_ARRAY: {
                g_autofree const char **items = g_variant_get_strv(value, NULL);
                text = items[0] ? g_strjoinv(",", (char **) items) : g_strdup("none");
                break;
        }
        default:
                text = g_variant_print(value, FALSE);
        }

        if (with_unit && prop->unit && text[0] != '\0') {
                const char *sep = g_str_has_prefix(prop->unit, "°") ? "" : " ";
                return g_strdup_printf("%s%s%s", text, sep, prop->unit);
        }
        return g_steal_pointer(&text);
}

gboolean accel_parse_boolean(const char *text, gboolean *ret)
{
        static const char *const yes[] = {"yes", "true", "on", "1"};
        static const char *const no[] = {"no", "false", "off", "0"};

        for (size_t i = 0; i < G_N_ELEMENTS(yes); i++) {
                if (g_ascii_strcasecmp(text, yes[i]) == 0) {
                        *ret = TRUE;
                        return TRUE;
                }
                if (g_ascii_strcasecmp(text, no[i]) == 0) {
                        *ret = FALSE;
                        return TRUE;
                }
        }
        return FALSE;
}

static gboolean parse_uint32(const char *text, guint32 *ret)
{
        guint64 value;

        if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT32, &value, NULL))
                return FALSE;
        *ret = (guint32) value;
        return TRUE;
}

static gboolean parse_double(const char *text, double *ret)
{
        char *end = NULL;
        double value;

        errno = 0;
        value = g_ascii_strtod(text, &end);
        if (errno != 0 || end == text || *end != '\0' || !isfinite(value))
                return FALSE;
        *ret = value;
        return TRUE;
}

static gboolean is_disk_name(const char *name)
{
        if (name[0] == '\0' || g_str_equal(name, ".") || g_str_equal(name, ".."))
                return FALSE;
        for (const char *p = name; *p; p++)
                if (!g_ascii_isalnum(*p) && *p != '-' && *p != '_' && *p != '.')
                        return FALSE;
        return TRUE;
}

static GVariant *parse_disk_list(const AccelProperty *prop, char **argv, int argc, GError **error)
{
        g_autoptr(GVariantBuilder) builder = g_variant_builder_new(G_VARIANT_TYPE("as"));

        for (int i = 0; i < argc; i++) {
                g_auto(GStrv) words = g_strsplit_set(argv[i], ", ", -1);

                for (char **w = words; *w; w++) {
                        if ((*w)[0] == '\0' || (argc == 1 && g_str_equal(*w, "none")))
                                continue;
                        if (!is_disk_name(*w)) {
                                g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                            "%s: \"%s\" is not a block device name (like sda)", prop->key,
                                            *w);
                                return NULL;
                        }
                        g_variant_builder_add(builder, "s", *w);
                }
        }
        return g_variant_new("(as)", builder);
}

GVariant *accel_property_parse(const AccelProperty *prop, char **argv, int argc, GError **error)
{
        if (!prop->set_method) {
                g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s is read-only", prop->key);
                return NULL;
        }
        if (g_str_equal(prop->signature, "as"))
                return parse_disk_list(prop, argv, argc, error);

        if (argc != 1) {
                g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            "%s takes exactly one value, got %d", prop->key, argc);
                return NULL;
        }

        switch (prop->signature[0]) {
        case 'b': {
                gboolean b;
                if (accel_parse_boolean(argv[0], &b))
                        return g_variant_new("(b)", b);
                g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            "%s: \"%s\" is not a boolean (use yes or no)", prop->key, argv[0]);
                return NULL;
        }
        case 'u': {
                guint32 u;
                if (parse_uint32(argv[0], &u))
                        return g_variant_new("(u)", u);
                g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            "%s: \"%s\" is not a non-negative whole number", prop->key, argv[0]);
                return NULL;
        }
        case 'd': {
                double d;
                if (parse_double(argv[0], &d))
                        return g_variant_new("(d)", d);
                g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: \"%s\" is not a number",
                            prop->key, argv[0]);
                return NULL;
        }
        default:
                g_assert_not_reached();
        }
}
