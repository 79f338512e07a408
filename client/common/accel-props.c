/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#include "accel-generated.h"
#include "accel-props.h"
#include "client-i18n.h"

#define USEC_PER_SEC 1000000.0

static const AccelProperty properties[] = {
        {"has-accelerometer", "HasAccelerometer", N_("Accelerometer"), NULL, NULL,
         N_("an accelerometer was found and initialized")},
        {"backend", "Backend", N_("Backend"), NULL, NULL, N_("how the EC is reached")},
        {"backend-reason", "BackendReason", N_("Backend reason"), NULL, NULL,
         N_("why this backend was chosen")},
        {"backend-reason-code", "BackendReasonCode", N_("Backend reason code"), NULL, NULL,
         N_("found, not-initialized, no-accelerometer")},
        {"hardware-state", "HardwareState", N_("Hardware state"), NULL, NULL,
         N_("ok, failing, or stopped (re-initializing with a back-off)")},
        {"last-error", "LastError", N_("Last error"), NULL, NULL, N_("the poll path's last hard error")},
        {"model", "Model", N_("Model"), NULL, NULL, N_("the machine's DMI product version")},
        {"axis-code", "AxisCode", N_("Axis code"), NULL, NULL, N_("axis orientation code 0..7")},
        {"position", "Position", N_("Position"), "counts", NULL, N_("latest readout x y"), TRUE},
        {"rest-position", "RestPosition", N_("Rest position"), "counts", NULL, N_("calibrated rest x y"),
         TRUE},
        {"temperature", "Temperature", N_("Temperature"), "°C", NULL, N_("sensor temperature"), TRUE},
        {"keyboard-activity", "KeyboardActivity", N_("Keyboard activity"), NULL, NULL,
         N_("keyboard used within 100 ms"), TRUE},
        {"mouse-activity", "MouseActivity", N_("Mouse activity"), NULL, NULL,
         N_("pointer used within 100 ms"), TRUE},
        {"sampling-rate", "SamplingRate", N_("Sampling rate"), "Hz", "SetSamplingRate",
         N_("readouts per second, 1..1000")},
        {"oversampling-ratio", "OversamplingRatio", N_("Oversampling ratio"), NULL, "SetOversamplingRatio",
         N_("EC samples per readout")},
        {"filter-order", "FilterOrder", N_("Filter order"), NULL, "SetFilterOrder",
         N_("EC running-average filter order, 1..8")},
        {"fake-data-mode", "FakeDataMode", N_("Fake data mode"), NULL, "SetFakeDataMode",
         N_("EC self-test counter instead of data")},
        {"invert", "Invert", N_("Invert"), NULL, "SetInvert", N_("negate both axes")},
        {"input-devices", "InputDevices", N_("Input devices"), NULL, "SetInputDevices",
         N_("hdaps input devices through uinput")},
        {"polling", "Polling", N_("Polling"), NULL, NULL, N_("continuous polling is running")},
        {"effective-rate", "EffectiveRate", N_("Effective rate"), "Hz", NULL,
         N_("the rate polling runs at now (0: not polling)")},
        {"effective-rate-reason", "EffectiveRateReason", N_("Effective rate reason"), NULL, NULL,
         N_("why polling runs at that rate")},
        {"effective-rate-reason-code", "EffectiveRateReasonCode", N_("Effective rate reason code"), NULL,
         NULL, N_("the same as a stable code (see tpaccelctl(1))")},
        {"suspended", "Suspended", N_("Suspended"), NULL, NULL, N_("the machine is asleep")},
        {"pitch", "Pitch", N_("Pitch"), "°", NULL, N_("degrees, front edge up is positive"), TRUE},
        {"roll", "Roll", N_("Roll"), "°", NULL, N_("degrees, right side up is positive"), TRUE},
        {"orientation", "Orientation", N_("Orientation"), NULL, NULL,
         N_("normal, bottom-up, left-up, right-up; undefined: no reading yet"), TRUE},
        {"tilt-step", "TiltStep", N_("Tilt step"), "°", "SetTiltStep",
         N_("Tilt signal granularity, 0.1..45")},
        {"shock-sensitivity", "ShockSensitivity", N_("Shock sensitivity"), NULL, "SetShockSensitivity",
         N_("0.1 (hard shocks only) .. 10")},
        {"shock-active", "ShockActive", N_("Shock active"), NULL, NULL, N_("a shock is in progress"), FALSE,
         TRUE},
        {"shock-hold-ms", "ShockHoldMs", N_("Shock hold"), "ms", NULL, N_("quiet time that ends a shock")},
        {"shock-count", "ShockCount", N_("Shocks"), NULL, NULL, N_("shocks since the daemon started")},
        {"last-shock", "LastShock", N_("Last shock"), NULL, NULL,
         N_("time and magnitude of the last shock")},
        {"vibration-level", "VibrationLevel", N_("Vibration level"), "g", NULL, N_("background motion"),
         TRUE, TRUE},
        {"last-polled", "LastPolled", N_("Last polled"), NULL, NULL,
         N_("when motion processing last saw a readout")},
        {"shock-min-rate", "ShockMinRate", N_("Shock minimum rate"), "Hz", NULL,
         N_("shocks are detected only when polling this fast")},
        {"protected-disks", "ProtectedDisks", N_("Protected disks"), NULL, "SetProtectedDisks",
         N_("disks parked on a shock")},
        {"parked", "Parked", N_("Heads parked"), NULL, NULL, N_("the protected disks are parked now")},
        {"park-count", "ParkCount", N_("Parks"), NULL, NULL, N_("head parks since the daemon started")},
        {"protection-state", "ProtectionState", N_("Protection"), NULL, NULL,
         N_("off, armed, parked, paused")},
        {"paused-until", "PausedUntil", N_("Paused until"), NULL, NULL, N_("when a Pause ends")},
        {"movement-watched", "MovementWatched", N_("Movement watched"), NULL, NULL,
         N_("someone holds a movement claim: movement is detected")},
        {"moving", "Moving", N_("Moving"), NULL, NULL,
         N_("the machine is being moved (only while movement is watched)")},
        {"move-count", "MoveCount", N_("Movements"), NULL, NULL, N_("movements since the daemon started")},
};

const char *accel_property_signature(const AccelProperty *prop)
{
        GDBusPropertyInfo *info = g_dbus_interface_info_lookup_property(
                tpaccel_accelerometer_interface_info(), prop->dbus_name);

        g_assert(info); /* test-accel-props checks the table against the XML */
        return info->signature;
}

const AccelProperty *accel_properties(size_t *ret_n)
{
        *ret_n = G_N_ELEMENTS(properties);
        return properties;
}

/* Keys renamed with their D-Bus property, still accepted for one release (0.2) so that scripts
 * keep working; status and --json show the new key only. */
static const struct {
        const char *old_key, *key;
} key_aliases[] = {
        {"claimed", "polling"},
};

const AccelProperty *accel_property_by_key(const char *key)
{
        for (size_t i = 0; i < G_N_ELEMENTS(key_aliases); i++)
                if (g_str_equal(key_aliases[i].old_key, key))
                        key = key_aliases[i].key;
        for (size_t i = 0; i < G_N_ELEMENTS(properties); i++)
                if (g_str_equal(properties[i].key, key))
                        return &properties[i];
        return NULL;
}

/* The word, translated for people (status) or as is for scripts (get). */
static const char *word(const char *english, gboolean for_people)
{
        return for_people ? _(english) : english;
}

/* CLOCK_MONOTONIC microseconds as "N.N s ago" / "in N s" relative to now. */
static char *format_monotonic(guint64 usec, gboolean for_people)
{
        double delta = ((double) usec - (double) g_get_monotonic_time()) / USEC_PER_SEC;

        if (usec == 0)
                return g_strdup(word(N_("never"), for_people));
        if (delta <= 0)
                return g_strdup_printf(word(N_("%.1f s ago"), for_people), -delta);
        return g_strdup_printf(word(N_("in %.1f s"), for_people), delta);
}

double accel_display_round(double value, unsigned decimals)
{
        double scale = pow(10, decimals);
        double rounded = round(value * scale) / scale;

        return rounded == 0 ? 0 : rounded; /* -0 compares equal to 0 */
}

char *accel_property_format(const AccelProperty *prop, GVariant *value, gboolean with_unit)
{
        g_autofree char *text = NULL;

        if (!g_variant_is_of_type(value, G_VARIANT_TYPE(accel_property_signature(prop))))
                return g_strdup_printf(_("(unexpected type %s)"), g_variant_get_type_string(value));

        if (g_str_equal(prop->dbus_name, "LastShock")) {
                guint64 usec;
                double magnitude;

                g_variant_get(value, "(td)", &usec, &magnitude);
                if (usec == 0)
                        return g_strdup(word(N_("never"), with_unit));
                g_autofree char *when = format_monotonic(usec, with_unit);
                return g_strdup_printf("%.2f g, %s", magnitude, when);
        }
        if (g_str_equal(prop->dbus_name, "LastPolled")) {
                guint64 usec = g_variant_get_uint64(value);
                return usec == 0 ? g_strdup(word(N_("not polled"), with_unit))
                                 : format_monotonic(usec, with_unit);
        }
        if (g_str_equal(prop->dbus_name, "PausedUntil")) {
                guint64 usec = g_variant_get_uint64(value);
                return usec == 0 ? g_strdup(word(N_("not paused"), with_unit))
                                 : format_monotonic(usec, with_unit);
        }

        switch (g_variant_classify(value)) {
        case G_VARIANT_CLASS_BOOLEAN:
                text = g_strdup(g_variant_get_boolean(value) ? word(N_("yes"), with_unit)
                                                             : word(N_("no"), with_unit));
                break;
        case G_VARIANT_CLASS_STRING:
                text = g_strdup(g_variant_get_string(value, NULL));
                /* Nothing, in words; a model DMI does not name is unknown, as diagnose and monitor say. */
                if (with_unit && text[0] == '\0')
                        return g_strdup(g_str_equal(prop->key, "model") ? _("unknown") : _("(none)"));
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
                text = g_strdup_printf("%.2f", accel_display_round(g_variant_get_double(value), 2));
                break;
        case G_VARIANT_CLASS_TUPLE: {
                gint32 x, y;
                g_variant_get(value, "(ii)", &x, &y);
                text = g_strdup_printf("%d %d", x, y);
                break;
        }
        case G_VARIANT_CLASS_ARRAY: {
                g_autofree const char **items = g_variant_get_strv(value, NULL);
                text = items[0] ? g_strjoinv(",", (char **) items) : g_strdup(word(N_("none"), with_unit));
                break;
        }
        default:
                text = g_variant_print(value, FALSE);
        }

        if (with_unit && prop->unit && text[0] != '\0') {
                const char *sep = g_str_equal(prop->unit, "°") ? "" : " "; /* 30°, but 38 °C (SI) */
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

/* A plain decimal number ("1", "-0.5", "2.5e1"): no leading space, no hex, inf or nan, as the daemon's
 * state file takes them (safe_atod() in service/shared/strutil.h). */
static gboolean parse_double(const char *text, double *ret)
{
        char *end = NULL;
        double value;

        if (!g_ascii_isdigit(text[0]) && !((text[0] == '-' || text[0] == '+' || text[0] == '.') && text[1]))
                return FALSE;
        for (const char *p = text; *p; p++)
                if (!g_ascii_isdigit(*p) && !strchr("+-.eE", *p))
                        return FALSE;
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
                                            _("%s: \"%s\" is not a block device name (like sda)"), prop->key,
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
                g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("%s is read-only"),
                            prop->key);
                return NULL;
        }
        if (g_str_equal(accel_property_signature(prop), "as"))
                return parse_disk_list(prop, argv, argc, error);

        if (argc != 1) {
                g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            _("%s takes exactly one value, got %d (set changes one key at a time)"),
                            prop->key, argc);
                return NULL;
        }

        switch (accel_property_signature(prop)[0]) {
        case 'b': {
                gboolean b;
                if (accel_parse_boolean(argv[0], &b))
                        return g_variant_new("(b)", b);
                g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            _("%s: \"%s\" is not a boolean (use yes or no)"), prop->key, argv[0]);
                return NULL;
        }
        case 'u': {
                guint32 u;
                if (parse_uint32(argv[0], &u))
                        return g_variant_new("(u)", u);
                if (argv[0][0] != '\0' && strspn(argv[0], "0123456789") == strlen(argv[0]))
                        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                    _("%s: %s is out of range (far above any valid value)"), prop->key,
                                    argv[0]);
                else
                        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                    _("%s: \"%s\" is not a non-negative whole number"), prop->key, argv[0]);
                return NULL;
        }
        case 'd': {
                double d;
                if (parse_double(argv[0], &d))
                        return g_variant_new("(d)", d);
                g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("%s: \"%s\" is not a number"),
                            prop->key, argv[0]);
                return NULL;
        }
        default:
                g_assert_not_reached();
        }
}
