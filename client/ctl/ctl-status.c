/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccelctl status and get: reading properties. */
#include <stdio.h>

#include "accel-json.h"
#include "accel-props.h"
#include "accel-words.h"
#include "ctl.h"

static GVariant *lookup(GVariant *props, const AccelProperty *prop)
{
        return g_variant_lookup_value(props, prop->dbus_name,
                                      G_VARIANT_TYPE(accel_property_signature(prop)));
}

/* Without an accelerometer, the readings are placeholders (0, "undefined"), not readings. */
static gboolean no_reading(GVariant *props, const AccelProperty *prop)
{
        gboolean has_accelerometer = TRUE;

        (void) g_variant_lookup(props, "HasAccelerometer", "b", &has_accelerometer);
        return prop->reading && !has_accelerometer;
}

/* One object, the properties by key; a reading without an accelerometer is null. */
static void print_json(GVariant *props)
{
        g_autoptr(JsonBuilder) builder = json_builder_new();
        g_autoptr(JsonNode) root = NULL;
        g_autofree char *text = NULL;
        size_t n;
        const AccelProperty *table = accel_properties(&n);

        json_builder_begin_object(builder);
        for (size_t i = 0; i < n; i++) {
                g_autoptr(GVariant) value = lookup(props, &table[i]);
                if (!value)
                        continue;
                json_builder_set_member_name(builder, table[i].key);
                if (no_reading(props, &table[i]))
                        json_builder_add_null_value(builder);
                else
                        json_builder_add_value(builder, accel_json_from_variant(value));
        }
        json_builder_end_object(builder);
        root = json_builder_get_root(builder);
        text = accel_json_to_string(root, TRUE);
        printf("%s\n", text);
}

typedef enum PollAge {
        POLL_AGE_CURRENT,    /* polling runs, or the value needs none */
        POLL_AGE_NOT_POLLED, /* nothing polled since tpacceld started */
        POLL_AGE_OLD,        /* as of the last poll, *ret_seconds ago */
} PollAge;

/* How current prop's value is: a value that needs polling is as old as the last poll while nothing
 * polls (LastPolled). */
static PollAge poll_age(GVariant *props, const AccelProperty *prop, double *ret_seconds)
{
        gboolean polling = FALSE;
        guint64 last = 0;

        if (!prop->polled)
                return POLL_AGE_CURRENT;
        (void) g_variant_lookup(props, "Polling", "b", &polling);
        if (polling)
                return POLL_AGE_CURRENT;
        (void) g_variant_lookup(props, "LastPolled", "t", &last);
        if (last == 0)
                return POLL_AGE_NOT_POLLED;
        *ret_seconds = MAX(((double) g_get_monotonic_time() - (double) last) / 1e6, 0.0);
        return POLL_AGE_OLD;
}

/* For a value that needs polling while nothing polls: " (not polled)" or " (polled N s ago)", so that
 * an old value is never shown as a current one; "" otherwise. */
static char *age_note(GVariant *props, const AccelProperty *prop)
{
        double age = 0;

        switch (poll_age(props, prop, &age)) {
        case POLL_AGE_NOT_POLLED:
                return g_strdup_printf(" (%s)", _("not polled"));
        case POLL_AGE_OLD:
                return g_strdup_printf(_(" (polled %.0f s ago)"), age);
        default:
                return g_strdup("");
        }
}

/* For people reading another language than English: the service's English reason sentences and state
 * codes in their words (from the stable codes beside them); NULL to show the value as it is. */
static char *translated_text(GVariant *props, const AccelProperty *prop)
{
        static const struct {
                const char *property, *code_property;
        } from_code[] = {
                {"BackendReason", "BackendReasonCode"}, {"EffectiveRateReason", "EffectiveRateReasonCode"},
                {"ProtectionState", "ProtectionState"}, {"HardwareState", "HardwareState"},
                {"Orientation", "Orientation"},
        };
        const char *code = NULL, *words;

        if (!accel_words_translated())
                return NULL;
        for (size_t i = 0; i < G_N_ELEMENTS(from_code); i++)
                if (g_str_equal(prop->dbus_name, from_code[i].property)) {
                        if (!g_variant_lookup(props, from_code[i].code_property, "&s", &code))
                                return NULL;
                        words = accel_code_words(from_code[i].code_property, code);
                        return words ? g_strdup(words) : NULL;
                }
        return NULL;
}

static void print_human(GVariant *props)
{
        size_t n;
        const AccelProperty *table = accel_properties(&n);
        int width = 0;

        for (size_t i = 0; i < n; i++)
                width = MAX(width, (int) g_utf8_strlen(_(table[i].label), -1));

        for (size_t i = 0; i < n; i++) {
                g_autoptr(GVariant) value = lookup(props, &table[i]);
                g_autofree char *words = value ? translated_text(props, &table[i]) : NULL;
                g_autofree char *text = !value ? g_strdup(_("(not provided by the service)"))
                                        : no_reading(props, &table[i]) ? g_strdup(_("no reading"))
                                        : words                        ? g_steal_pointer(&words)
                                                : accel_property_format(&table[i], value, TRUE);
                g_autofree char *note =
                        value && !no_reading(props, &table[i]) ? age_note(props, &table[i]) : g_strdup("");
                const char *label = _(table[i].label);
                /* printf pads by bytes; pad by characters so that translated labels align too. */
                int pad = width - (int) g_utf8_strlen(label, -1);
                printf("%*s%s: %s%s\n", pad, "", label, text, note);
        }
}

ExitStatus ctl_status(Ctl *ctl, char **args, int n_args)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) props = NULL;
        ExitStatus status;

        if (n_args > 0)
                return ctl_usage_error(_("status takes no arguments, got \"%s\""), args[0]);

        status = ctl_connect(ctl);
        if (status != EXIT_STATUS_OK)
                return status;

        props = ctl_get_all(ctl, &error);
        if (!props)
                return ctl_report_error(ctl, _("cannot read the accelerometer's properties"), error);

        if (ctl->json)
                print_json(props);
        else
                print_human(props);
        return EXIT_STATUS_OK;
}

/* get of a reading without an accelerometer: there is none, and a placeholder 0 must not pass for one. */
static ExitStatus report_no_reading(GVariant *props, const AccelProperty *prop)
{
        const char *reason = "";

        (void) g_variant_lookup(props, "BackendReason", "&s", &reason);
        fprintf(stderr, _("tpaccelctl: %s: no reading: %s\n"), prop->key,
                reason[0] ? reason : _("there is no accelerometer"));
        return EXIT_STATUS_NO_ACCELEROMETER;
}

/* get of a value that needs polling while nothing polls: the value goes to stdout as it is (scripts
 * parse it), a note to stderr says how old it is. */
static void warn_if_not_current(GVariant *props, const AccelProperty *prop)
{
        double age = 0;

        switch (poll_age(props, prop, &age)) {
        case POLL_AGE_NOT_POLLED:
                fprintf(stderr,
                        _("tpaccelctl: %s: not a reading: nothing has polled the accelerometer since "
                          "tpacceld started (it changes only while something polls, e.g. tpaccelctl "
                          "monitor)\n"),
                        prop->key);
                break;
        case POLL_AGE_OLD:
                fprintf(stderr,
                        _("tpaccelctl: %s: as of the last poll, %.0f s ago (it changes only while something "
                          "polls, e.g. tpaccelctl monitor)\n"),
                        prop->key, age);
                break;
        default:
                break;
        }
}

/* get KEY...: the values from one GetAll, one per line in the order given; with --json, one key's JSON
 * value, or an object of the keys' values for several. Checked before anything is printed: a key the
 * service does not provide or sends with another type, a reading without an accelerometer. */
ExitStatus ctl_get(Ctl *ctl, char **args, int n_args)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) props = NULL;
        g_autofree const AccelProperty **keys = NULL;
        g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func((GDestroyNotify) g_variant_unref);
        ExitStatus status;

        if (n_args < 1)
                return ctl_usage_error(_("get takes one KEY or more (see 'tpaccelctl get --help')"));
        keys = g_new(const AccelProperty *, n_args);
        for (int i = 0; i < n_args; i++) {
                keys[i] = accel_property_by_key(args[i]);
                if (!keys[i])
                        return ctl_usage_error(
                                _("unknown key \"%s\" (see 'tpaccelctl get --help' for the keys)"), args[i]);
        }

        status = ctl_connect(ctl);
        if (status != EXIT_STATUS_OK)
                return status;
        props = ctl_get_all(ctl, &error);
        if (!props)
                return ctl_report_error(ctl, _("cannot read the accelerometer's properties"), error);

        for (int i = 0; i < n_args; i++) {
                GVariant *value = g_variant_lookup_value(props, keys[i]->dbus_name, NULL);

                if (!value) {
                        fprintf(stderr, _("tpaccelctl: %s: not provided by the service\n"), keys[i]->key);
                        return EXIT_STATUS_FAILURE;
                }
                g_ptr_array_add(values, value);
                if (!g_variant_is_of_type(value, G_VARIANT_TYPE(accel_property_signature(keys[i])))) {
                        fprintf(stderr, _("tpaccelctl: %s: the service sent type %s, expected %s\n"),
                                keys[i]->key, g_variant_get_type_string(value),
                                accel_property_signature(keys[i]));
                        return EXIT_STATUS_FAILURE;
                }
                if (no_reading(props, keys[i]))
                        return report_no_reading(props, keys[i]);
        }

        for (int i = 0; i < n_args; i++)
                warn_if_not_current(props, keys[i]);
        if (ctl->json) {
                g_autoptr(JsonNode) root = NULL;
                g_autofree char *text = NULL;

                if (n_args == 1)
                        root = accel_json_from_variant(g_ptr_array_index(values, 0));
                else {
                        g_autoptr(JsonBuilder) builder = json_builder_new();

                        json_builder_begin_object(builder);
                        for (int i = 0; i < n_args; i++) {
                                json_builder_set_member_name(builder, keys[i]->key);
                                json_builder_add_value(
                                        builder, accel_json_from_variant(g_ptr_array_index(values, i)));
                        }
                        json_builder_end_object(builder);
                        root = json_builder_get_root(builder);
                }
                text = accel_json_to_string(root, FALSE);
                printf("%s\n", text);
                return EXIT_STATUS_OK;
        }
        for (int i = 0; i < n_args; i++) {
                g_autofree char *text = accel_property_format(keys[i], g_ptr_array_index(values, i), FALSE);
                printf("%s\n", text);
        }
        return EXIT_STATUS_OK;
}
