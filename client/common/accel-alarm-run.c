/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "accel-alarm-run.h"
#include "accel-bus.h"
#include "accel-sound.h"
#include "client-i18n.h"

#define LOGIN_NAME    "org.freedesktop.login1"
#define LOGIN_OBJECT  "/org/freedesktop/login1"
#define LOGIN_MANAGER "org.freedesktop.login1.Manager"
#define LOGIN_SESSION "org.freedesktop.login1.Session"
#define PROPERTIES    "org.freedesktop.DBus.Properties"
#define TIMES_MIN_MS  100
#define TIMES_MAX_MS  600000
#define LOGIN_CALL_MS (25 * 1000)

struct AlarmRunner {
        AlarmRunnerOptions options;
        AlarmRunnerCallbacks callbacks;
        gpointer userdata;
        Alarm alarm;
        GCancellable *cancellable;
        char *session_path; /* logind's object of the session followed */
        char *session_id;
        guint locked_watch;       /* PropertiesChanged of the session */
        guint moved_watch;        /* Moved of tpacceld */
        guint service_watch;      /* tpacceld's name */
        guint timer;              /* the state machine's deadline */
        gboolean claim_held;      /* ClaimMovement answered, not yet released */
        gboolean claim_in_flight; /* ClaimMovement sent */
        int lid_fd;               /* logind's inhibitor, -1 if none */
        gboolean lid_in_flight;
        AlarmSound *sound; /* NULL when canberra could not start (told) */
        GHashTable *told;  /* problems told, each once */
};

int alarm_times_from_env(AlarmTimes *times, char **error_text)
{
        static const char *const names[] = {"TPACCEL_ALARM_ARMING_MS", "TPACCEL_ALARM_GRACE_MS"};
        guint *fields[] = {&times->arming_ms, &times->grace_ms};

        *times = (AlarmTimes) {ALARM_ARMING_MS_DEFAULT, ALARM_GRACE_MS_DEFAULT, ALARM_REPEAT_MS_DEFAULT};
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
                const char *value = g_getenv(names[i]);
                guint64 ms;

                if (!value)
                        continue;
                if (!g_ascii_string_to_unsigned(value, 10, TIMES_MIN_MS, TIMES_MAX_MS, &ms, NULL)) {
                        *error_text = g_strdup_printf("%s=\"%s\": expected milliseconds from %d to %d",
                                                      names[i], value, TIMES_MIN_MS, TIMES_MAX_MS);
                        return -EINVAL;
                }
                *fields[i] = (guint) ms;
        }
        return 0;
}

static void tell_problem(AlarmRunner *r, const char *text, gboolean fatal)
{
        if (g_hash_table_contains(r->told, text))
                return;
        g_hash_table_add(r->told, g_strdup(text));
        if (r->callbacks.problem)
                r->callbacks.problem(text, fatal, r->userdata);
}

/* Finishes a call made with the runner as userdata. NULL with *ret left NULL when it was cancelled (the
 * runner may be gone), NULL with *ret and *error set when it failed, else the reply with *ret set. */
static GVariant *finish_call(GObject *source, GAsyncResult *result, gpointer userdata, AlarmRunner **ret,
                             GError **error)
{
        GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, error);

        if (!reply && g_error_matches(*error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return NULL;
        *ret = userdata;
        return reply;
}

static void apply(AlarmRunner *r, AlarmEffects effects);

/* --- The movement claim --------------------------------------------------------------------- */

static void release_claim(AlarmRunner *r)
{
        r->claim_held = FALSE;
        g_dbus_connection_call(r->options.accel_bus, ACCEL_BUS_NAME, ACCEL_OBJECT, ACCEL_INTERFACE,
                               "ReleaseMovement", NULL, NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, NULL,
                               NULL, NULL);
}

static void on_claimed(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        AlarmRunner *r = NULL;
        g_autoptr(GVariant) reply = finish_call(source, result, userdata, &r, &error);

        if (!r)
                return;
        r->claim_in_flight = FALSE;
        if (!reply) {
                g_autofree char *words = accel_error_describe(error, _("bus"));
                g_autofree char *text =
                        g_strdup_printf(_("The motion alarm cannot watch for movement: %s"), words);
                /* Not running and not activatable: claimed when it appears (on_service_appeared()). */
                tell_problem(r, text, !accel_error_is_service_missing(error));
                return;
        }
        r->claim_held = TRUE;
        g_debug("Alarm: movement claimed");
        if (!alarm_wants_claim(r->alarm.state))
                release_claim(r); /* unlocked while the call was on its way */
}

static void claim(AlarmRunner *r)
{
        if (r->claim_held || r->claim_in_flight)
                return;
        r->claim_in_flight = TRUE;
        /* Auto-start: an armed alarm starts tpacceld if it is not running. */
        g_dbus_connection_call(r->options.accel_bus, ACCEL_BUS_NAME, ACCEL_OBJECT, ACCEL_INTERFACE,
                               "ClaimMovement", NULL, G_VARIANT_TYPE("()"), G_DBUS_CALL_FLAGS_NONE,
                               ACCEL_CALL_TIMEOUT_MS, r->cancellable, on_claimed, r);
}

/* tpacceld came (its first instance, or a new one after a restart): a claim wanted and not held goes to
 * it. GDBus tells a change of owner as a vanish, then an appearance. */
static void on_service_appeared(GDBusConnection *bus, const char *name, const char *owner, gpointer userdata)
{
        AlarmRunner *r = userdata;

        apply(r, alarm_reclaim(&r->alarm));
}

/* tpacceld went: our claim died with it. Claimed again at once (D-Bus activation starts a new instance
 * where it can), else when one appears. */
static void on_service_vanished(GDBusConnection *bus, const char *name, gpointer userdata)
{
        AlarmRunner *r = userdata;

        if (!r->claim_held)
                return;
        g_message(_("Motion alarm: tpacceld left the bus; claiming again when it is back"));
        r->claim_held = FALSE;
        apply(r, alarm_reclaim(&r->alarm));
}

static void on_moved(GDBusConnection *bus, const char *sender, const char *path, const char *interface,
                     const char *signal, GVariant *parameters, gpointer userdata)
{
        AlarmRunner *r = userdata;
        guint64 time_usec;
        double strength;

        if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(td)")))
                return;
        g_variant_get(parameters, "(td)", &time_usec, &strength);
        g_debug("Alarm: moved (strength %.2f) while %s", strength, alarm_state_name(r->alarm.state));
        apply(r, alarm_moved(&r->alarm, g_get_monotonic_time(), g_get_real_time()));
}

/* --- The lid switch ---------------------------------------------------------------------------- */

static void on_inhibited(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GUnixFDList) fds = NULL;
        g_autoptr(GVariant) reply = g_dbus_connection_call_with_unix_fd_list_finish(
                G_DBUS_CONNECTION(source), &fds, result, &error);
        AlarmRunner *r;
        gint32 index;
        int fd;

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        r = userdata;
        r->lid_in_flight = FALSE;
        if (!reply) {
                g_dbus_error_strip_remote_error(error);
                g_autofree char *text = g_strdup_printf(
                        _("The motion alarm cannot keep the lid switch from suspending the machine: %s"),
                        error->message);
                tell_problem(r, text, FALSE);
                return;
        }
        g_variant_get(reply, "(h)", &index);
        fd = fds ? g_unix_fd_list_get(fds, index, NULL) : -1;
        if (fd < 0)
                return;
        if (!alarm_blocks_lid(r->alarm.state)) {
                close(fd); /* unlocked meanwhile */
                return;
        }
        g_debug("Alarm: lid switch blocked");
        r->lid_fd = fd;
}

static void block_lid(AlarmRunner *r)
{
        if (r->lid_fd >= 0 || r->lid_in_flight || !r->options.login_bus)
                return;
        r->lid_in_flight = TRUE;
        g_dbus_connection_call_with_unix_fd_list(
                r->options.login_bus, LOGIN_NAME, LOGIN_OBJECT, LOGIN_MANAGER, "Inhibit",
                g_variant_new("(ssss)", "handle-lid-switch", "tpaccel",
                              "The motion alarm sounds until the session is unlocked", "block"),
                G_VARIANT_TYPE("(h)"), G_DBUS_CALL_FLAGS_NONE, LOGIN_CALL_MS, NULL, r->cancellable,
                on_inhibited, r);
}

static void unblock_lid(AlarmRunner *r)
{
        if (r->lid_fd < 0)
                return;
        close(r->lid_fd);
        r->lid_fd = -1;
        g_debug("Alarm: lid switch unblocked");
}

/* --- Sound --------------------------------------------------------------------------------------- */

static void play(AlarmRunner *r, AlarmSoundKind kind)
{
        g_autofree char *why = NULL;

        if (r->sound && alarm_sound_play(r->sound, kind, r->options.volume_percent, &why) >= 0)
                return;
        if (why) {
                g_autofree char *text = g_strdup_printf(_("The motion alarm cannot play its sound (%s): %s"),
                                                        alarm_sound_event_id(kind), why);
                tell_problem(r, text, FALSE);
        }
        if (r->callbacks.sound_failed)
                r->callbacks.sound_failed(kind == ALARM_SOUND_ALARM, r->userdata);
}

/* --- The state machine's effects ------------------------------------------------------------- */

static gboolean on_timer(gpointer userdata)
{
        AlarmRunner *r = userdata;

        r->timer = 0;
        apply(r, alarm_tick(&r->alarm, g_get_monotonic_time()));
        return G_SOURCE_REMOVE;
}

static void schedule(AlarmRunner *r)
{
        gint64 wait_usec;

        g_clear_handle_id(&r->timer, g_source_remove);
        if (!r->alarm.deadline_usec)
                return;
        wait_usec = MAX(r->alarm.deadline_usec - g_get_monotonic_time(), 0);
        /* Rounded up: a timer never fires before the deadline (an early tick would do nothing). */
        r->timer = g_timeout_add((guint) ((wait_usec + 999) / 1000), on_timer, r);
}

static void apply(AlarmRunner *r, AlarmEffects effects)
{
        if (effects & ALARM_EFFECT_STATE_CHANGED)
                g_debug("Alarm: %s", alarm_state_name(r->alarm.state));
        if (effects & ALARM_EFFECT_CLAIM)
                claim(r);
        if ((effects & ALARM_EFFECT_RELEASE) && r->claim_held)
                release_claim(r);
        if (effects & ALARM_EFFECT_BLOCK_LID)
                block_lid(r);
        if (effects & ALARM_EFFECT_UNBLOCK_LID)
                unblock_lid(r);
        if ((effects & ALARM_EFFECT_SILENCE) && r->sound)
                alarm_sound_stop(r->sound);
        if (effects & ALARM_EFFECT_WARN)
                play(r, ALARM_SOUND_WARNING);
        if (effects & ALARM_EFFECT_SOUND)
                play(r, ALARM_SOUND_ALARM);
        if ((effects & ALARM_EFFECT_STATE_CHANGED) && r->callbacks.state_changed)
                r->callbacks.state_changed(r->alarm.state, r->userdata);
        if (effects & ALARM_EFFECT_SUMMARY) {
                g_autofree char *text = alarm_summary(&r->alarm);
                if (text && r->callbacks.summary)
                        r->callbacks.summary(text, r->userdata);
        }
        schedule(r);
}

/* --- The session's lock ------------------------------------------------------------------------ */

static void locked_changed(AlarmRunner *r, gboolean locked)
{
        gint64 now = g_get_monotonic_time();

        g_debug("Alarm: session %s %s", r->session_id, locked ? "locked" : "unlocked");
        apply(r, locked ? alarm_lock(&r->alarm, now) : alarm_unlock(&r->alarm, now));
}

static void on_session_properties(GDBusConnection *bus, const char *sender, const char *path,
                                  const char *interface, const char *signal, GVariant *parameters,
                                  gpointer userdata)
{
        AlarmRunner *r = userdata;
        const char *changed_interface;
        g_autoptr(GVariant) changed = NULL;
        gboolean locked;

        if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(sa{sv}as)")))
                return;
        g_variant_get(parameters, "(&s@a{sv}@as)", &changed_interface, &changed, NULL);
        if (g_str_equal(changed_interface, LOGIN_SESSION) &&
            g_variant_lookup(changed, "LockedHint", "b", &locked))
                locked_changed(r, locked);
}

static void on_locked_hint(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        AlarmRunner *r = NULL;
        g_autoptr(GVariant) reply = finish_call(source, result, userdata, &r, &error);
        g_autoptr(GVariant) value = NULL;

        if (!r)
                return;
        if (!reply) {
                g_dbus_error_strip_remote_error(error);
                g_autofree char *text = g_strdup_printf(
                        _("The login manager does not say when session %s is locked (no LockedHint: %s): "
                          "the motion alarm cannot arm"),
                        r->session_id, error->message);
                tell_problem(r, text, TRUE);
                return;
        }
        g_variant_get(reply, "(v)", &value);
        if (g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN) && g_variant_get_boolean(value))
                locked_changed(r, TRUE);
}

static void follow_session(AlarmRunner *r, const char *path)
{
        r->session_path = g_strdup(path);
        g_debug("Alarm: following session %s (%s)", r->session_id ?: "?", path);
        r->locked_watch = g_dbus_connection_signal_subscribe(
                r->options.login_bus, LOGIN_NAME, PROPERTIES, "PropertiesChanged", path, LOGIN_SESSION,
                G_DBUS_SIGNAL_FLAGS_NONE, on_session_properties, r, NULL);
        g_dbus_connection_call(r->options.login_bus, LOGIN_NAME, path, PROPERTIES, "Get",
                               g_variant_new("(ss)", LOGIN_SESSION, "LockedHint"), G_VARIANT_TYPE("(v)"),
                               G_DBUS_CALL_FLAGS_NONE, LOGIN_CALL_MS, r->cancellable, on_locked_hint, r);
}

static void on_session_found(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        AlarmRunner *r = NULL;
        g_autoptr(GVariant) reply = finish_call(source, result, userdata, &r, &error);
        const char *path;

        if (!r)
                return;
        if (!reply) {
                g_dbus_error_strip_remote_error(error);
                g_autofree char *text = g_strdup_printf(
                        _("The motion alarm cannot find this login session at the login manager (%s): it "
                          "arms only in a session that logind knows"),
                        error->message);
                tell_problem(r, text, TRUE);
                return;
        }
        g_variant_get(reply, "(&o)", &path);
        if (!r->session_id)
                r->session_id = g_path_get_basename(path);
        follow_session(r, path);
}

/* The session asked for, else $XDG_SESSION_ID's, else this process's. */
static void find_session(AlarmRunner *r, const char *asked)
{
        const char *id = asked ?: g_getenv("XDG_SESSION_ID");

        if (!r->options.login_bus) {
                tell_problem(r,
                             _("The motion alarm needs the system bus to know when the session is locked"),
                             TRUE);
                return;
        }
        if (id && id[0]) {
                r->session_id = g_strdup(id);
                g_dbus_connection_call(r->options.login_bus, LOGIN_NAME, LOGIN_OBJECT, LOGIN_MANAGER,
                                       "GetSession", g_variant_new("(s)", id), G_VARIANT_TYPE("(o)"),
                                       G_DBUS_CALL_FLAGS_NONE, LOGIN_CALL_MS, r->cancellable,
                                       on_session_found, r);
                return;
        }
        g_dbus_connection_call(r->options.login_bus, LOGIN_NAME, LOGIN_OBJECT, LOGIN_MANAGER,
                               "GetSessionByPID", g_variant_new("(u)", (guint32) getpid()),
                               G_VARIANT_TYPE("(o)"), G_DBUS_CALL_FLAGS_NONE, LOGIN_CALL_MS, r->cancellable,
                               on_session_found, r);
}

/* --- Life cycle ----------------------------------------------------------------------------------- */

AlarmRunner *alarm_runner_new(const AlarmRunnerOptions *options, const AlarmRunnerCallbacks *callbacks,
                              gpointer userdata)
{
        AlarmRunner *r = g_new0(AlarmRunner, 1);
        g_autofree char *why = NULL;

        r->options = *options;
        r->options.session_id = NULL; /* not kept: find_session() copies the one asked for */
        g_object_ref(r->options.accel_bus);
        if (r->options.login_bus)
                g_object_ref(r->options.login_bus);
        r->callbacks = *callbacks;
        r->userdata = userdata;
        r->lid_fd = -1;
        r->cancellable = g_cancellable_new();
        r->told = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        alarm_init(&r->alarm, options->times.arming_ms ? &options->times : NULL);

        if (alarm_sound_new(&r->sound, &why) < 0) {
                g_autofree char *text = g_strdup_printf(_("The motion alarm cannot play sounds: %s"), why);
                tell_problem(r, text, FALSE);
        }
        r->moved_watch = g_dbus_connection_signal_subscribe(r->options.accel_bus, ACCEL_BUS_NAME,
                                                            ACCEL_INTERFACE, "Moved", ACCEL_OBJECT, NULL,
                                                            G_DBUS_SIGNAL_FLAGS_NONE, on_moved, r, NULL);
        r->service_watch = g_bus_watch_name_on_connection(r->options.accel_bus, ACCEL_BUS_NAME,
                                                          G_BUS_NAME_WATCHER_FLAGS_NONE, on_service_appeared,
                                                          on_service_vanished, r, NULL);
        find_session(r, options->session_id);
        return r;
}

void alarm_runner_free(AlarmRunner *r)
{
        if (!r)
                return;
        g_cancellable_cancel(r->cancellable);
        g_clear_object(&r->cancellable);
        g_clear_handle_id(&r->timer, g_source_remove);
        if (r->claim_held)
                release_claim(r);
        unblock_lid(r);
        if (r->sound)
                alarm_sound_stop(r->sound);
        g_clear_pointer(&r->sound, alarm_sound_free);
        if (r->locked_watch)
                g_dbus_connection_signal_unsubscribe(r->options.login_bus, r->locked_watch);
        if (r->moved_watch)
                g_dbus_connection_signal_unsubscribe(r->options.accel_bus, r->moved_watch);
        if (r->service_watch)
                g_bus_unwatch_name(r->service_watch);
        g_clear_object(&r->options.accel_bus);
        g_clear_object(&r->options.login_bus);
        g_hash_table_destroy(r->told);
        g_free(r->session_path);
        g_free(r->session_id);
        g_free(r);
}

void alarm_runner_set_volume(AlarmRunner *r, guint percent)
{
        r->options.volume_percent = CLAMP(percent, ALARM_VOLUME_MIN, ALARM_VOLUME_MAX);
}

AlarmState alarm_runner_get_state(AlarmRunner *r)
{
        return r->alarm.state;
}

const char *alarm_runner_get_session(AlarmRunner *r)
{
        return r->session_id;
}
