/* SPDX-License-Identifier: GPL-2.0-or-later */
/* net.hadess.SensorProxy. Semantics follow iio-sensor-proxy 3.6+ (see the notes on it): Claim and Release
 * succeed for every sensor type, present or not; an accelerometer claim is keyed to the caller's unique
 * name (claiming twice is one claim; leaving the bus releases it); the ClaimAccelerometer reply waits for
 * the first readout so that a Get right after it is valid. PropertiesChanged is broadcast, like
 * iio-sensor-proxy 3.0, so passive listeners' caches stay right too. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-creds.h"
#include "bus-face.h"
#include "bus-sensorproxy.h"
#include "claims.h"
#include "log.h"
#include "screen-orientation.h"
#include "strutil.h"
#include "strv.h"
#include "tablet-mode.h"

#define LIGHT_LEVEL_UNIT     "lux"
#define COMPASS_HEADING_NONE (-1.0) /* iio-sensor-proxy: -1 when unknown */

/* A claimer's unique name and uid. */
typedef struct ClaimerUid {
        char *name;
        uid_t uid;
} ClaimerUid;

struct SensorProxy {
        Context *context;
        /* A connection of its own: the bus applies a policy for net.hadess.SensorProxy (iio-sensor-
         * proxy's denies Introspect on the Compass object) to every name of the connection that owns
         * it, and a shared connection would list these objects in org.thinkpad.Accelerometer's tree. */
        sd_bus *bus;
        BusPump *pump; /* drives bus under the face's budget */
        bool owns_name;
        sd_bus_slot *object_slot, *compass_slot, *name_lost_slot;
        sd_bus_track *claims; /* accelerometer claimers; NULL when there are none */
        /* The uid of each claimer seen, for the per-user bound; an entry whose name the track no longer
         * holds is stale and dropped when looked at. At most SENSOR_PROXY_CLAIMERS_MAX live ones. */
        ClaimerUid *claimer_uids;
        size_t n_claimer_uids;
        sd_bus_message **pending; /* ClaimAccelerometer calls waiting for a readout */
        size_t n_pending;
        sd_event_source *pending_timeout;
        ScreenOrientation screen;
};

int sensor_proxy_mode_from_string(const char *s)
{
        static const char *const names[_SENSOR_PROXY_MODE_MAX] = {
                [SENSOR_PROXY_AUTO] = "auto",
                [SENSOR_PROXY_YES] = "yes",
                [SENSOR_PROXY_NO] = "no",
        };

        for (int i = 0; s && i < _SENSOR_PROXY_MODE_MAX; i++)
                if (streq(s, names[i]))
                        return i;
        return -EINVAL;
}

static void emit_changed(SensorProxy *p, bool orientation, bool tilt)
{
        const char *props[3] = {};
        size_t n = 0;
        int r;

        if (!p->owns_name)
                return;
        if (orientation)
                props[n++] = "AccelerometerOrientation";
        if (tilt)
                props[n++] = "AccelerometerTilt";
        if (n == 0)
                return;
        r = sd_bus_emit_properties_changed_strv(p->bus, SENSOR_PROXY_OBJECT_PATH, SENSOR_PROXY_INTERFACE,
                                                (char **) props);
        if (r < 0)
                log_debug_errno(r, "Failed to emit PropertiesChanged on %s: %m", SENSOR_PROXY_OBJECT_PATH);
}

/* Runs a state change and emits what it changed. */
#define SCREEN_CHANGE(p, expr)                                                                              \
        do {                                                                                                \
                MotionOrientation _o = (p)->screen.current;                                                 \
                ScreenTilt _t = (p)->screen.tilt;                                                           \
                if (expr)                                                                                   \
                        emit_changed((p), (p)->screen.current != _o, (p)->screen.tilt != _t);               \
        } while (0)

/* Pending Claim calls */

static void flush_pending(SensorProxy *p)
{
        for (size_t i = 0; i < p->n_pending; i++) {
                int r = sd_bus_reply_method_return(p->pending[i], NULL);
                if (r < 0)
                        log_debug_errno(r, "Cannot answer ClaimAccelerometer of %s (gone?): %m",
                                        strna(sd_bus_message_get_sender(p->pending[i])));
                sd_bus_message_unref(p->pending[i]);
        }
        free(p->pending);
        p->pending = NULL;
        p->n_pending = 0;
        p->pending_timeout = sd_event_source_disable_unref(p->pending_timeout);
}

static int on_pending_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
        SensorProxy *p = userdata;

        log_debug("No readout within %llu ms of ClaimAccelerometer; answering %zu call(s) with the last "
                  "known values",
                  (unsigned long long) (SENSOR_PROXY_CLAIM_REPLY_TIMEOUT_USEC / USEC_PER_MSEC),
                  p->n_pending);
        flush_pending(p);
        return 0;
}

static int add_pending(SensorProxy *p, sd_bus_message *m)
{
        sd_bus_message **a;
        int r;

        a = reallocarray(p->pending, p->n_pending + 1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        p->pending = a;
        if (!p->pending_timeout) {
                r = sd_event_add_time_relative(p->context->event, &p->pending_timeout, CLOCK_MONOTONIC,
                                               SENSOR_PROXY_CLAIM_REPLY_TIMEOUT_USEC, 0, on_pending_timeout,
                                               p);
                if (r < 0)
                        return log_error_errno(r, "Failed to start the ClaimAccelerometer timeout: %m");
        }
        p->pending[p->n_pending++] = sd_bus_message_ref(m);
        return 0;
}

/* Claims */

/* A claim polls only in tablet mode: in laptop mode the screen's orientation is "normal" whatever the
 * base does (screen-orientation.h), so polling for it would cost wakeups for nothing (20 Hz all
 * day on a convertible used as a laptop, because desktops claim whenever rotation is unlocked).
 * Folding into tablet mode starts polling, unfolding stops it. */
static void update_demand(SensorProxy *p)
{
        bool claimed = p->claims && sd_bus_track_count(p->claims) > 0;

        poller_set_demand(&p->context->poller, DEMAND_SENSOR_PROXY, claimed && p->screen.tablet_mode);
}

static int on_claims_empty(sd_bus_track *t, void *userdata)
{
        SensorProxy *p = userdata;

        if (sd_bus_track_count(t) > 0)
                return 0;
        log_debug("Last %s accelerometer claim released", SENSOR_PROXY_BUS_NAME);
        p->claims = sd_bus_track_unref(p->claims);
        poller_set_demand(&p->context->poller, DEMAND_SENSOR_PROXY, false);
        return 0;
}

/* Drops the uid entries of claimers the track no longer holds, then counts the live ones of uid. */
static size_t claimers_of_uid(SensorProxy *p, uid_t uid)
{
        size_t n = 0;

        for (size_t i = p->n_claimer_uids; i > 0; i--) {
                if (!p->claims || sd_bus_track_count_name(p->claims, p->claimer_uids[i - 1].name) <= 0) {
                        free(p->claimer_uids[i - 1].name);
                        p->claimer_uids[i - 1] = p->claimer_uids[--p->n_claimer_uids];
                        continue;
                }
                n += p->claimer_uids[i - 1].uid == uid;
        }
        return n;
}

/* Remembers the uid of a new claimer (for the per-user bound). */
static int remember_claimer_uid(SensorProxy *p, const char *name, uid_t uid)
{
        ClaimerUid *a = reallocarray(p->claimer_uids, p->n_claimer_uids + 1, sizeof(*a));

        if (!a)
                return -ENOMEM;
        p->claimer_uids = a;
        a[p->n_claimer_uids].name = strdup(name);
        if (!a[p->n_claimer_uids].name)
                return -ENOMEM;
        a[p->n_claimer_uids++].uid = uid;
        return 0;
}

/* A new claimer: at most SENSOR_PROXY_CLAIMERS_PER_UID_MAX connections of one user (but root), past
 * SENSOR_PROXY_CLAIMERS_MAX - SENSOR_PROXY_CLAIMERS_RESERVED only privileged ones, none past
 * SENSOR_PROXY_CLAIMERS_MAX (bus-sensorproxy.h); sets error to LimitsExceeded otherwise. Returns 1 with
 * *ret_uid the new claimer's uid, (uid_t) -1 for a connection that claims already; 0: the call waits for
 * its sender's uid (bus-creds.h); or a negative errno. */
static int admit_claimer(BusFace *f, SensorProxy *p, sd_bus_message *m, uid_t *ret_uid, sd_bus_error *error)
{
        const char *sender = sd_bus_message_get_sender(m);
        unsigned n = p->claims ? sd_bus_track_count(p->claims) : 0;
        uid_t uid;
        int r;

        *ret_uid = (uid_t) -1;
        if (!sender || (p->claims && sd_bus_track_count_name(p->claims, sender) > 0))
                return 1;
        r = bus_sender_uid(f, m, &uid, error);
        if (r <= 0)
                return r;
        if (uid != 0 && claimers_of_uid(p, uid) >= SENSOR_PROXY_CLAIMERS_PER_UID_MAX) {
                log_debug("%s: ClaimAccelerometer of %s (uid %u) refused: the per-user bound",
                          SENSOR_PROXY_BUS_NAME, sender, (unsigned) uid);
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                        "ClaimAccelerometer: the per-user bound of %u claiming connections is "
                        "reached (uid %u); release one first",
                        SENSOR_PROXY_CLAIMERS_PER_UID_MAX, (unsigned) uid);
        }
        *ret_uid = uid;
        if (n < SENSOR_PROXY_CLAIMERS_MAX - SENSOR_PROXY_CLAIMERS_RESERVED)
                return 1;
        if (n < SENSOR_PROXY_CLAIMERS_MAX && bus_uid_privileged(f, uid))
                return 1;
        *ret_uid = (uid_t) -1;
        log_debug("%s: ClaimAccelerometer of %s (uid %u) refused: %u claimers", SENSOR_PROXY_BUS_NAME,
                  sender, (unsigned) uid, n);
        return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                 "ClaimAccelerometer: the bound of %u claiming connections is reached (%u "
                                 "of them only for privileged users); release one first",
                                 n >= SENSOR_PROXY_CLAIMERS_MAX
                                         ? SENSOR_PROXY_CLAIMERS_MAX
                                         : SENSOR_PROXY_CLAIMERS_MAX - SENSOR_PROXY_CLAIMERS_RESERVED,
                                 SENSOR_PROXY_CLAIMERS_RESERVED);
}

static int method_claim_accelerometer(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        SensorProxy *p = f->sensor_proxy;
        bool was_polling = c->poller.polling;
        uid_t uid;
        int r;

        if (!sensor_proxy_has_accelerometer(f))
                return sd_bus_reply_method_return(m, NULL); /* like iio-sensor-proxy: no sensor, no error */

        r = admit_claimer(f, p, m, &uid, error);
        if (r <= 0)
                return r < 0 ? r : 1; /* 1: waits for the sender's uid, runs again (bus-creds.h) */
        if (!p->claims) {
                r = sd_bus_track_new(p->bus, &p->claims, on_claims_empty, p);
                if (r < 0)
                        return log_error_errno(r, "Failed to create the %s claim tracker: %m",
                                               SENSOR_PROXY_BUS_NAME);
        }
        r = sd_bus_track_add_sender(p->claims, m);
        if (r == -ENXIO) /* the client is already gone: its business, not worth a line per client */
                return log_debug_errno(r, "%s left before its claim was tracked",
                                       strna(sd_bus_message_get_sender(m)));
        if (r < 0)
                return log_error_errno(r, "Failed to track the accelerometer claim of %s: %m",
                                       strna(sd_bus_message_get_sender(m)));
        if (uid != (uid_t) -1 && remember_claimer_uid(p, sd_bus_message_get_sender(m), uid) < 0)
                return log_error_errno(-ENOMEM, "Failed to record the accelerometer claim of %s: %m",
                                       strna(sd_bus_message_get_sender(m)));
        log_debug("%s: ClaimAccelerometer by %s", SENSOR_PROXY_BUS_NAME,
                  strna(sd_bus_message_get_sender(m)));

        if (!p->screen.tablet_mode) {
                /* Laptop mode: "normal" needs no readout (the base's angles are not used). */
                SCREEN_CHANGE(p, screen_orientation_feed(&p->screen, now_usec(), 0, 0, true));
                update_demand(p);
                return sd_bus_reply_method_return(m, NULL);
        }
        if (!was_polling)
                screen_orientation_reset(&p->screen); /* the values are old: wait for a fresh readout */
        update_demand(p);

        if (c->poller.polling && p->screen.have_readout && p->n_pending == 0)
                return sd_bus_reply_method_return(m, NULL);
        r = add_pending(p, m);
        if (r < 0)
                return r;
        return 1; /* answered later: the message is handled */
}

static int method_release_accelerometer(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        SensorProxy *p = f->sensor_proxy;
        int r;

        /* Not before the sender's earlier calls that wait for its uid (bus-creds.h: ordering rules). */
        r = bus_sender_in_order(f, m, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        if (p->claims) {
                r = sd_bus_track_remove_sender(p->claims, m);
                if (r < 0)
                        return r;
                if (r > 0)
                        log_debug("%s: ReleaseAccelerometer by %s", SENSOR_PROXY_BUS_NAME,
                                  strna(sd_bus_message_get_sender(m)));
        }
        return sd_bus_reply_method_return(m, NULL); /* releasing without a claim is no error either */
}

/* ClaimLight, ReleaseLight, ClaimProximity, ReleaseProximity, ClaimCompass, ReleaseCompass: there is no
 * such sensor, and iio-sensor-proxy answers success for absent sensors. */
static int method_absent_sensor(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return sd_bus_reply_method_return(m, NULL);
}

/* Properties */

static int property_get_has_accelerometer(sd_bus *bus, const char *path, const char *interface,
                                          const char *property, sd_bus_message *reply, void *userdata,
                                          sd_bus_error *error)
{
        return sd_bus_message_append(reply, "b", sensor_proxy_has_accelerometer(userdata));
}

static int property_get_orientation(sd_bus *bus, const char *path, const char *interface,
                                    const char *property, sd_bus_message *reply, void *userdata,
                                    sd_bus_error *error)
{
        BusFace *f = userdata;
        return sd_bus_message_append(reply, "s",
                                     sensor_proxy_has_accelerometer(f)
                                             ? screen_orientation_string(&f->sensor_proxy->screen)
                                             : "undefined");
}

static int property_get_tilt(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        return sd_bus_message_append(reply, "s", screen_tilt_to_string(f->sensor_proxy->screen.tilt));
}

static int property_get_false(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return sd_bus_message_append(reply, "b", false);
}

static int property_get_light_unit(sd_bus *bus, const char *path, const char *interface,
                                   const char *property, sd_bus_message *reply, void *userdata,
                                   sd_bus_error *error)
{
        return sd_bus_message_append(reply, "s", LIGHT_LEVEL_UNIT);
}

static int property_get_zero(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return sd_bus_message_append(reply, "d", 0.0);
}

static int property_get_heading(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return sd_bus_message_append(reply, "d", COMPASS_HEADING_NONE);
}

#define CHANGE SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define CONST  SD_BUS_VTABLE_PROPERTY_CONST
#define ANYONE SD_BUS_VTABLE_UNPRIVILEGED

static const sd_bus_vtable sensor_proxy_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("HasAccelerometer", "b", property_get_has_accelerometer, 0, CHANGE),
        SD_BUS_PROPERTY("AccelerometerOrientation", "s", property_get_orientation, 0, CHANGE),
        SD_BUS_PROPERTY("AccelerometerTilt", "s", property_get_tilt, 0, CHANGE),
        SD_BUS_PROPERTY("HasAmbientLight", "b", property_get_false, 0, CONST),
        SD_BUS_PROPERTY("LightLevelUnit", "s", property_get_light_unit, 0, CONST),
        SD_BUS_PROPERTY("LightLevel", "d", property_get_zero, 0, CONST),
        SD_BUS_PROPERTY("HasProximity", "b", property_get_false, 0, CONST),
        SD_BUS_PROPERTY("ProximityNear", "b", property_get_false, 0, CONST),
        SD_BUS_METHOD("ClaimAccelerometer", "", "", method_claim_accelerometer, ANYONE),
        SD_BUS_METHOD("ReleaseAccelerometer", "", "", method_release_accelerometer, ANYONE),
        SD_BUS_METHOD("ClaimLight", "", "", method_absent_sensor, ANYONE),
        SD_BUS_METHOD("ReleaseLight", "", "", method_absent_sensor, ANYONE),
        SD_BUS_METHOD("ClaimProximity", "", "", method_absent_sensor, ANYONE),
        SD_BUS_METHOD("ReleaseProximity", "", "", method_absent_sensor, ANYONE),
        SD_BUS_VTABLE_END,
};

static const sd_bus_vtable compass_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("HasCompass", "b", property_get_false, 0, CONST),
        SD_BUS_PROPERTY("CompassHeading", "d", property_get_heading, 0, CONST),
        SD_BUS_METHOD("ClaimCompass", "", "", method_absent_sensor, ANYONE),
        SD_BUS_METHOD("ReleaseCompass", "", "", method_absent_sensor, ANYONE),
        SD_BUS_VTABLE_END,
};

/* Tablet mode */

static void on_tablet_mode(TabletMode *t, bool tablet_mode, void *userdata)
{
        SensorProxy *p = userdata;
        bool was_polling = p->context->poller.polling;

        SCREEN_CHANGE(p, screen_orientation_set_tablet_mode(&p->screen, tablet_mode));
        update_demand(p);
        if (tablet_mode && !was_polling && p->context->poller.polling)
                log_debug("Folded into a tablet: polling for the screen's rotation");
        else if (!tablet_mode && was_polling && !p->context->poller.polling)
                log_debug("Back in laptop mode: the screen's rotation needs no polling");
}

void sensor_proxy_open_tablet_mode(const char *input_dir, TabletMode **ret)
{
        const char *dir = input_dir ?: TABLET_MODE_INPUT_DIR_DEFAULT;
        int r;

        r = tablet_mode_open(dir, ret);
        if (r == -ENODEV)
                log_info("No tablet-mode switch (SW_TABLET_MODE) in %s: this machine cannot turn into a "
                         "tablet, so its screen never rotates; %s says HasAccelerometer false and nothing "
                         "polls the accelerometer for rotation",
                         dir, SENSOR_PROXY_BUS_NAME);
        else if (r < 0)
                log_warning_errno(r,
                                  "Cannot look for the tablet-mode switch in %s: %m; %s says "
                                  "HasAccelerometer false (no screen rotation without it)",
                                  dir, SENSOR_PROXY_BUS_NAME);
        else
                log_info("Tablet-mode switch %s: %s mode", tablet_mode_device(*ret),
                         tablet_mode_get(*ret) ? "tablet" : "laptop");
}

static void setup_tablet_mode(SensorProxy *p)
{
        TabletMode *t = p->context->tablet_mode;

        if (!t || tablet_mode_attach(t, p->context->event, on_tablet_mode, p) < 0)
                return; /* laptop mode (logged) */
        (void) screen_orientation_set_tablet_mode(&p->screen, tablet_mode_get(t));
}

/* Who else provides the name */

static const char *installed_iio_sensor_proxy(void)
{
        static const char *const paths[] = {IIO_SENSOR_PROXY_BINARIES};

        for (size_t i = 0; i < ELEMENTSOF(paths); i++)
                if (access(paths[i], X_OK) == 0)
                        return paths[i];
        return NULL;
}

/* > 0 (and logs why) if auto mode should leave the name to iio-sensor-proxy. */
static int name_provided_elsewhere(sd_bus *bus)
{
        _cleanup_strv_free_ char **acquired = NULL, **activatable = NULL;
        const char *binary = installed_iio_sensor_proxy();
        int r;

        r = sd_bus_list_names(bus, &acquired, &activatable);
        if (r < 0) {
                log_warning_errno(r,
                                  "Cannot list the bus names, not serving %s (--sensor-proxy=yes serves it "
                                  "anyway): %m",
                                  SENSOR_PROXY_BUS_NAME);
                return 1;
        }
        if (strv_contains(acquired, SENSOR_PROXY_BUS_NAME)) {
                log_info("%s is owned by another service (iio-sensor-proxy is running): not serving it",
                         SENSOR_PROXY_BUS_NAME);
                return 1;
        }
        if (strv_contains(activatable, SENSOR_PROXY_BUS_NAME)) {
                log_info("%s is bus-activatable (iio-sensor-proxy would be started for it): not serving it "
                         "(--sensor-proxy=yes serves it while the name is free)",
                         SENSOR_PROXY_BUS_NAME);
                return 1;
        }
        if (binary)
                log_info("iio-sensor-proxy is installed (%s) but not running (it exits on machines without "
                         "an "
                         "IIO accelerometer): serving %s",
                         binary, SENSOR_PROXY_BUS_NAME);
        return 0;
}

static int on_name_lost(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        SensorProxy *p = userdata;
        const char *name = NULL;

        if (sd_bus_message_read(m, "s", &name) < 0 || !name || !streq(name, SENSOR_PROXY_BUS_NAME))
                return 0;
        if (p->owns_name)
                log_notice("%s was taken over by another service (iio-sensor-proxy --replace?): no longer "
                           "serving it",
                           SENSOR_PROXY_BUS_NAME);
        p->owns_name = false;
        return 0;
}

static void unexport(SensorProxy *p)
{
        p->object_slot = sd_bus_slot_unref(p->object_slot);
        p->compass_slot = sd_bus_slot_unref(p->compass_slot);
        p->name_lost_slot = sd_bus_slot_unref(p->name_lost_slot);
        p->pump = bus_pump_free(p->pump);
        p->bus = sd_bus_flush_close_unref(p->bus);
}

/* A second client connection to the bus tpacceld's own connection uses, on the same event loop and
 * budget. */
static int open_connection(BusFace *f, sd_bus **ret, BusPump **ret_pump)
{
        Context *c = f->context;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        const char *address;
        int r;

        r = sd_bus_get_address(f->bus, &address);
        if (r < 0)
                return r;
        r = sd_bus_new(&bus);
        if (r < 0)
                return r;
        (void) sd_bus_set_description(bus, "tpacceld-sensorproxy");
        r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, true);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r >= 0)
                r = bus_pump_new(bus, c->event, SD_EVENT_PRIORITY_NORMAL, &f->bus_budget, ret_pump);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

int sensor_proxy_start(BusFace *f, SensorProxyMode mode)
{
        Context *c = f->context;
        SensorProxy *sp;
        int r;

        if (mode == SENSOR_PROXY_NO) {
                log_debug("Not serving %s (--sensor-proxy=no)", SENSOR_PROXY_BUS_NAME);
                return 0;
        }
        if (mode == SENSOR_PROXY_AUTO && name_provided_elsewhere(f->bus) > 0)
                return 0;

        sp = calloc(1, sizeof(*sp));
        if (!sp)
                return -ENOMEM;
        sp->context = c;
        screen_orientation_init(&sp->screen);
        f->sensor_proxy = sp; /* owned by the face from here on (bus_face_free()) */

        r = open_connection(f, &sp->bus, &sp->pump);
        if (r < 0) {
                log_warning_errno(r, "Cannot open a second bus connection for %s, not serving it: %m",
                                  SENSOR_PROXY_BUS_NAME);
                return 0;
        }
        r = sd_bus_add_object_vtable(sp->bus, &sp->object_slot, SENSOR_PROXY_OBJECT_PATH,
                                     SENSOR_PROXY_INTERFACE, sensor_proxy_vtable, f);
        if (r >= 0)
                r = sd_bus_add_object_vtable(sp->bus, &sp->compass_slot, SENSOR_PROXY_COMPASS_PATH,
                                             SENSOR_PROXY_COMPASS_IFACE, compass_vtable, f);
        if (r >= 0)
                r = sd_bus_match_signal(sp->bus, &sp->name_lost_slot, "org.freedesktop.DBus",
                                        "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameLost",
                                        on_name_lost, sp);
        if (r < 0) {
                log_warning_errno(r, "Cannot export %s, not serving it: %m", SENSOR_PROXY_BUS_NAME);
                unexport(sp);
                return 0;
        }

        setup_tablet_mode(sp);

        /* Not replacing anyone; iio-sensor-proxy --replace may take the name over. */
        r = sd_bus_request_name(sp->bus, SENSOR_PROXY_BUS_NAME, SD_BUS_NAME_ALLOW_REPLACEMENT);
        if (r == -EEXIST) {
                log_notice("%s is owned by another service (iio-sensor-proxy?): serving %s only",
                           SENSOR_PROXY_BUS_NAME, ACCEL_BUS_NAME);
                unexport(sp);
                return 0;
        }
        if (r < 0) {
                log_warning_errno(r, "Cannot own %s (bus policy?), serving %s only: %m",
                                  SENSOR_PROXY_BUS_NAME, ACCEL_BUS_NAME);
                unexport(sp);
                return 0;
        }
        sp->owns_name = true;
        log_info("Serving %s too (screen orientation for desktops; %s mode)", SENSOR_PROXY_BUS_NAME,
                 tablet_mode_get(c->tablet_mode) ? "tablet" : "laptop");
        return 0;
}

void sensor_proxy_stop(BusFace *f)
{
        SensorProxy *p = f->sensor_proxy;
        int r;

        if (!p)
                return;
        flush_pending(p);
        if (p->owns_name && p->bus) {
                /* Not waiting for the bus's answer (bus-creds.h: the loop never waits on the bus). */
                r = sd_bus_release_name_async(p->bus, NULL, SENSOR_PROXY_BUS_NAME, NULL, NULL);
                if (r < 0)
                        log_debug_errno(r, "Failed to release %s: %m", SENSOR_PROXY_BUS_NAME);
                (void) sd_bus_flush(p->bus);
        }
        p->owns_name = false;
}

SensorProxy *sensor_proxy_free(SensorProxy *p)
{
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_pending; i++)
                sd_bus_message_unref(p->pending[i]);
        free(p->pending);
        p->pending_timeout = sd_event_source_disable_unref(p->pending_timeout);
        p->claims = sd_bus_track_unref(p->claims);
        for (size_t i = 0; i < p->n_claimer_uids; i++)
                free(p->claimer_uids[i].name);
        free(p->claimer_uids);
        unexport(p);
        free(p);
        return NULL;
}

bool sensor_proxy_has_accelerometer(const BusFace *f)
{
        Context *c = f->context;
        /* The HDAPS sensor is in the base: only a machine that turns into a tablet (the switch) rotates
         * its screen by it. Without the switch, claims would poll for an orientation that is always
         * "normal". */
        return c->has_accelerometer && c->tablet_mode;
}

void sensor_proxy_readout(BusFace *f, uint64_t time_usec, bool new_data)
{
        Context *c = f->context;
        SensorProxy *p = f->sensor_proxy;
        const MotionState *m;

        if (!p || !c->motion)
                return;
        m = motion_get_state(c->motion);
        SCREEN_CHANGE(p, screen_orientation_feed(&p->screen, time_usec, m->pitch, m->roll, new_data));
        if (p->n_pending > 0 && p->screen.have_readout)
                flush_pending(p);
}
