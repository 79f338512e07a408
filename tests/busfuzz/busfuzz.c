/* SPDX-License-Identifier: GPL-2.0-or-later */
/* busfuzz: a D-Bus fuzzer for a running tpacceld (tests/busfuzz/run-busfuzz.sh sets up the bus, polkit
 * (python-dbusmock's, or the real polkitd) and the daemon on the emulator with faults). Worker
 * processes, a quarter as root and the others as several unprivileged uids (65534, 1, 2, 3), open
 * connections that come and go, some kept open for a while (up to HELD_MAX per worker, with their
 * claims and streams), and send bounded random sequences of every method of org.thinkpad.Accelerometer
 * (ClaimAtRate, ClaimMovement and AcquireStream included: a stream's fd is held unread for a while,
 * then closed), org.thinkpad.EmbeddedController and net.hadess.SensorProxy, property Get/GetAll/Set,
 * Claim/Release, Introspect and unknown members, with random and boundary arguments and wrong signatures.
 * Meanwhile the parent flips what polkit allows (the mock's SetAllowed, or with --polkit-rules a rules file
 * the real polkitd reloads) and now and then sends SIGHUP. Afterwards it checks: the daemon is alive, every
 * call was answered, the properties agree with the state file and with the EC's own configuration
 * (0x17/0x82), every claim went with its connection (Polling false), and the RSS stayed bounded.
 *
 *   busfuzz --address=ADDR --pid=PID --state-file=PATH [--seconds=N] [--seed=S] [--workers=N]
 *           [--rss-growth-max=KB] [--polkit-rules=PATH]
 *
 * The seed is printed; the same seed gives the same sequences per worker (the interleaving of the
 * workers and the daemon's timing still vary). Exit 0: no finding; 1: a finding (printed). */

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "state-file.h"
#include "strv.h"

#define NAME           "org.thinkpad.Accelerometer"
#define PATH           "/org/thinkpad/Accelerometer"
#define IFACE          "org.thinkpad.Accelerometer"
#define EC_PATH        "/org/thinkpad/EmbeddedController"
#define EC_IFACE       "org.thinkpad.EmbeddedController"
#define SP_NAME        "net.hadess.SensorProxy"
#define SP_PATH        "/net/hadess/SensorProxy"
#define SP_IFACE       "net.hadess.SensorProxy"
#define POLKIT_NAME    "org.freedesktop.PolicyKit1"
#define POLKIT_PATH    "/org/freedesktop/PolicyKit1/Authority"
#define MOCK_IFACE     "org.freedesktop.DBus.Mock"
#define PROPS_IFACE    "org.freedesktop.DBus.Properties"
#define UNPRIVILEGED   65534
#define CALL_TIMEOUT   (30ULL * 1000000ULL) /* a call not answered in 30 s is a finding */
#define BATCH_MAX      40
#define IN_FLIGHT_MAX  24
#define RSS_GROWTH_MAX (16 * 1024) /* kB over the run; --rss-growth-max=0: not checked (ASan) */
#define HELD_MAX       40          /* connections a worker keeps open at once, besides its current one */
#define FDS_MAX        24          /* stream fds a worker holds unread */

/* How many times (100 ms apart) the check waits for polling to stop once every client left. */
#define POLLING_STOP_WAIT_TRIES 600
/* How long the EC's configuration may stay unreadable after the flood (read_ec_config). */
#define EC_CONFIG_WAIT_USEC (60ULL * 1000000ULL)

typedef struct Stats {
        uint64_t sent, replied, errors, abandoned, unanswered, connects, connect_failures;
        uint64_t set_succeeded;   /* Properties.Set must never succeed: nothing is writable */
        uint64_t limits_exceeded; /* LimitsExceeded answers (the claim and stream bounds) */
        uint64_t busy;            /* Error.Busy answers (polkit checks in flight) */
        uint64_t streams, claims; /* AcquireStream and Claim/ClaimAtRate calls that succeeded */
        char finding[256];
} Stats;

static Stats *stats; /* one per worker, shared with the parent */

/* xorshift64*: small, seeded, the same sequence for the same seed */
static uint64_t rng_state;
static uint64_t rnd(void)
{
        rng_state ^= rng_state >> 12;
        rng_state ^= rng_state << 25;
        rng_state ^= rng_state >> 27;
        return rng_state * 2685821657736338717ULL;
}
static unsigned rnd_below(unsigned n)
{
        return n ? (unsigned) (rnd() % n) : 0;
}
static bool chance(unsigned percent)
{
        return rnd_below(100) < percent;
}
#define PICK(array) ((array)[rnd_below(sizeof(array) / sizeof((array)[0]))])

static uint64_t now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000;
}

/* Every property of the XML (the references check compares), then two that do not exist. */
static const char *const properties[] = {
        "HasAccelerometer",
        "Backend",
        "BackendReason",
        "BackendReasonCode",
        "HardwareState",
        "LastError",
        "Model",
        "AxisCode",
        "Position",
        "RestPosition",
        "Temperature",
        "KeyboardActivity",
        "MouseActivity",
        "SamplingRate",
        "OversamplingRatio",
        "FilterOrder",
        "FakeDataMode",
        "Invert",
        "InputDevices",
        "Polling",
        "Claimed", /* Polling's deprecated alias */
        "EffectiveRate",
        "EffectiveRateReason",
        "EffectiveRateReasonCode",
        "Suspended",
        "Pitch",
        "Roll",
        "Orientation",
        "TiltStep",
        "ShockSensitivity",
        "ShockActive",
        "ShockHoldMs",
        "ShockCount",
        "LastShock",
        "VibrationLevel",
        "LastPolled",
        "ShockMinRate",
        "ProtectedDisks",
        "Parked",
        "ParkCount",
        "ProtectionState",
        "PausedUntil",
        "MovementWatched",
        "Moving",
        "MoveCount",
        "NoSuchProperty",
        "",
};

static const char *const interfaces[] = {IFACE, EC_IFACE, SP_IFACE, PROPS_IFACE, "org.example.Nothing", ""};

/* A random string: names, boundary lengths (up to 100 KB), control characters and UTF-8. */
static char *random_string(void)
{
        static const char *const fixed[] = {"",   "sda", "sdb",    "nosuchdisk0",       "../etc", ".",
                                            "..", "a b", "x\x01y", "\xc3\xa9t\xc3\xa9", "%s%n%s", "sda sda"};
        size_t n;
        char *s;

        if (chance(50))
                return strdup(chance(50) ? PICK(fixed) : PICK(properties));
        n = chance(90) ? rnd_below(40) : (size_t) PICK(((const unsigned[]) {32, 33, 255, 4096, 100000}));
        s = malloc(n + 1);
        if (!s)
                return NULL;
        for (size_t i = 0; i < n; i++)
                s[i] = (char) (chance(95) ? 'a' + rnd_below(26) : 1 + rnd_below(126)); /* ASCII, no NUL */
        s[n] = '\0';
        return s;
}

static uint32_t random_u32(void)
{
        static const uint32_t boundary[] = {0,    1,     2,     3,           7,           8,
                                            9,    25,    49,    50,          100,         999,
                                            1000, 1001,  1310,  1311,        3600,        3601,
                                            6553, 65535, 65536, 0x7fffffffu, 0x80000000u, UINT32_MAX};
        return chance(80) ? PICK(boundary) : (uint32_t) rnd();
}

static double random_double(void)
{
        static const double boundary[] = {0,
                                          0.1,
                                          0.09999999999999999,
                                          0.1000000001,
                                          1,
                                          2.5,
                                          10,
                                          10.0000001,
                                          45,
                                          45.0000001,
                                          -1,
                                          -0.0,
                                          1e-300,
                                          DBL_MIN,
                                          DBL_MAX,
                                          -DBL_MAX,
                                          3.3};
        double d;

        switch (rnd_below(10)) {
        case 0:
                return NAN;
        case 1:
                return chance(50) ? INFINITY : -INFINITY;
        case 2:
                memcpy(&d, &(uint64_t) {rnd()}, sizeof(d)); /* any bit pattern, NaN payloads included */
                return d;
        default:
                return PICK(boundary);
        }
}

/* Appends one random value of the basic or container type t. */
static int append_value(sd_bus_message *m, char t)
{
        _cleanup_free_ char *s = NULL;

        switch (t) {
        case 'u':
                return sd_bus_message_append(m, "u", random_u32());
        case 'i':
                return sd_bus_message_append(m, "i", (int32_t) random_u32());
        case 'q':
                return sd_bus_message_append(m, "q", (uint16_t) (chance(50) ? random_u32() : rnd()));
        case 't':
                return sd_bus_message_append(m, "t", rnd());
        case 'x':
                return sd_bus_message_append(m, "x", (int64_t) rnd());
        case 'y':
                return sd_bus_message_append(m, "y", (uint8_t) rnd());
        case 'b':
                return sd_bus_message_append(m, "b", (int) rnd_below(2));
        case 'd':
                return sd_bus_message_append(m, "d", random_double());
        case 's':
                s = random_string();
                return s ? sd_bus_message_append(m, "s", s) : -ENOMEM;
        case 'o':
                return sd_bus_message_append(m, "o", chance(50) ? PATH : "/");
        default:
                return -EINVAL;
        }
}

static int append_string_array(sd_bus_message *m)
{
        unsigned n = chance(90) ? rnd_below(4) : rnd_below(40);
        int r;

        r = sd_bus_message_open_container(m, 'a', "s");
        for (unsigned i = 0; r >= 0 && i < n; i++)
                r = append_value(m, 's');
        return r >= 0 ? sd_bus_message_close_container(m) : r;
}

/* An EC row for ReadRow: a readable row, a row that would change the EC's configuration behind the
 * daemon (0x10 configure, 0x14 power, 0x17/0x83 fake data: the daemon's allow-list must refuse them,
 * and the final EC check would see it if not), the battery row 0x0B, any other byte, or a wrong
 * length. */
static int append_row(sd_bus_message *m)
{
        static const uint8_t commands[] = {0x00, 0x01, 0x0A, 0x0B, 0x10, 0x11, 0x12,
                                           0x13, 0x14, 0x17, 0x17, 0x30, 0xff};
        static const uint8_t subs[] = {0x81, 0x82, 0x83, 0x00, 0x7f, 0xff};
        uint8_t row[20] = {};
        size_t len = chance(90) ? 16 : rnd_below(20);

        for (size_t i = 0; i < len; i++)
                row[i] = (uint8_t) rnd();
        row[0] = chance(90) ? PICK(commands) : (uint8_t) rnd();
        row[1] = row[0] == 0x17 ? PICK(subs) : row[1];
        return sd_bus_message_append_array(m, 'y', row, len);
}

static int append_variant(sd_bus_message *m)
{
        static const char types[] = {'u', 'i', 'd', 'b', 's', 'y'};
        char t[2] = {PICK(types), '\0'};
        int r;

        r = sd_bus_message_open_container(m, 'v', t);
        if (r >= 0)
                r = append_value(m, t[0]);
        return r >= 0 ? sd_bus_message_close_container(m) : r;
}

/* Appends arguments for the signature sig (the method's own or a wrong one). */
static int append_args(sd_bus_message *m, const char *sig)
{
        int r = 0;

        if (strcmp(sig, "qayq") == 0) {
                /* ReadRow: argument mask (bit 0: the command byte), row, data mask */
                r = sd_bus_message_append(
                        m, "q",
                        (uint16_t) (chance(70) ? PICK(((const uint16_t[]) {0x0001, 0x0003, 0x8001, 0xffff}))
                                               : rnd()));
                if (r >= 0)
                        r = append_row(m);
                return r >= 0 ? sd_bus_message_append(m, "q", (uint16_t) rnd()) : r;
        }
        for (const char *p = sig; r >= 0 && *p; p++) {
                if (p[0] == 'a' && p[1] == 's') {
                        r = append_string_array(m);
                        p++;
                } else if (p[0] == 'a' && p[1] == 'y') {
                        r = append_row(m);
                        p++;
                } else if (*p == 'v')
                        r = append_variant(m);
                else if (strncmp(p, "(ii)", 4) == 0) {
                        r = sd_bus_message_append(m, "(ii)", (int) rnd(), (int) rnd());
                        p += 3;
                } else if (strncmp(p, "a{sv}", 5) == 0) {
                        r = sd_bus_message_append(m, "a{sv}", 1, "key", "u", random_u32());
                        p += 4;
                } else
                        r = append_value(m, *p);
        }
        return r;
}

typedef struct Method {
        const char *path, *iface, *member, *sig;
        const char *const *strings; /* NULL-terminated: the "s" argument's usual values; NULL: random */
} Method;

/* Diagnose(s format): the two formats, near misses and garbage (random strings too, see below). */
static const char *const diagnose_formats[] = {"text", "json", "",       "JSON",     "text ", "jsonx",
                                               "xml",  "t",    "json\n", "%s%n%s%n", NULL};

static const Method methods[] = {
        {PATH, IFACE, "Claim", ""},
        {PATH, IFACE, "Claim", ""},
        {PATH, IFACE, "ClaimAtRate", "u"},
        {PATH, IFACE, "ClaimAtRate", "u"},
        {PATH, IFACE, "AcquireStream", ""},
        {PATH, IFACE, "AcquireStream", ""},
        {PATH, IFACE, "Release", ""},
        {PATH, IFACE, "ClaimMovement", ""},
        {PATH, IFACE, "ReleaseMovement", ""},
        {PATH, IFACE, "Calibrate", ""},
        {PATH, IFACE, "SetSamplingRate", "u"},
        {PATH, IFACE, "SetOversamplingRatio", "u"},
        {PATH, IFACE, "SetFilterOrder", "u"},
        {PATH, IFACE, "SetFakeDataMode", "b"},
        {PATH, IFACE, "SetInvert", "b"},
        {PATH, IFACE, "SetInputDevices", "b"},
        {PATH, IFACE, "Diagnose", "s", diagnose_formats},
        {PATH, IFACE, "SetShockSensitivity", "d"},
        {PATH, IFACE, "SetTiltStep", "d"},
        {PATH, IFACE, "SetProtectedDisks", "as"},
        {PATH, IFACE, "Pause", "u"},
        {PATH, IFACE, "NoSuchMethod", ""},
        {EC_PATH, EC_IFACE, "ReadRow", "qayq"},
        {PATH, PROPS_IFACE, "Get", "ss"},
        {PATH, PROPS_IFACE, "GetAll", "s"},
        {PATH, PROPS_IFACE, "Set", "ssv"},
        {EC_PATH, PROPS_IFACE, "GetAll", "s"},
        {PATH, "org.freedesktop.DBus.Introspectable", "Introspect", ""},
        {"/", "org.freedesktop.DBus.Introspectable", "Introspect", ""},
        {PATH, "org.freedesktop.DBus.Peer", "Ping", ""},
        {"/org/thinkpad/Nothing", IFACE, "Claim", ""},
        {SP_PATH, SP_IFACE, "ClaimAccelerometer", ""},
        {SP_PATH, SP_IFACE, "ReleaseAccelerometer", ""},
        {SP_PATH, SP_IFACE, "ClaimLight", ""},
        {SP_PATH, PROPS_IFACE, "GetAll", "s"},
};

static const char *const wrong_sigs[] = {"",  "u",     "s", "i", "b",    "d",  "as",  "uu",  "ay",   "qayq",
                                         "v", "a{sv}", "t", "x", "(ii)", "ss", "ssv", "qay", "uayq", "y"};

typedef struct Call {
        int worker;
        bool is_set, is_stream, is_claim;
} Call;

/* The worker's stream fds, held unread (a worker is one process: no locking). */
static int held_fds[FDS_MAX];
static size_t n_held_fds;

static void hold_fd(int fd)
{
        if (n_held_fds == FDS_MAX) {
                size_t i = rnd_below(FDS_MAX);
                close(held_fds[i]);
                held_fds[i] = fd;
                return;
        }
        held_fds[n_held_fds++] = fd;
}

static void close_some_fds(void)
{
        while (n_held_fds > 0 && chance(50)) {
                size_t i = rnd_below((unsigned) n_held_fds);
                close(held_fds[i]);
                held_fds[i] = held_fds[--n_held_fds];
        }
}

static int on_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        Call *call = userdata;
        Stats *st = &stats[call->worker];
        const sd_bus_error *e = sd_bus_message_get_error(reply);

        if (!e) {
                st->replied++;
                if (call->is_set)
                        st->set_succeeded++;
                if (call->is_claim)
                        st->claims++;
                if (call->is_stream) {
                        int fd = -1;
                        st->streams++;
                        if (sd_bus_message_read(reply, "h", &fd) > 0) {
                                fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
                                if (fd >= 0)
                                        hold_fd(fd);
                        }
                }
                return 0;
        }
        if (sd_bus_error_has_name(e, SD_BUS_ERROR_LIMITS_EXCEEDED))
                st->limits_exceeded++;
        if (sd_bus_error_has_name(e, "org.thinkpad.Accelerometer.Error.Busy"))
                st->busy++;
        /* NoReply/Timeout: sd-bus' own timeout fired, the daemon never answered. */
        if (sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY) ||
            sd_bus_error_has_name(e, SD_BUS_ERROR_TIMEOUT) ||
            sd_bus_error_has_name(e, SD_BUS_ERROR_SERVICE_UNKNOWN) ||
            sd_bus_error_has_name(e, SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
                st->unanswered++;
                snprintf(st->finding, sizeof(st->finding), "a call was not answered: %s: %s", e->name,
                         e->message ? e->message : "");
                return 0;
        }
        st->errors++;
        return 0;
}

static void call_free(void *p)
{
        free(p);
}

/* Sends one random call on bus. */
static int send_random_call(sd_bus *bus, int worker)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        const Method *meth = &PICK(methods);
        const char *sig = chance(85) ? meth->sig : PICK(wrong_sigs);
        const char *dest =
                strcmp(meth->iface, SP_IFACE) == 0 || strcmp(meth->path, SP_PATH) == 0 ? SP_NAME : NAME;
        sd_bus_slot *slot = NULL;
        Call *call;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, dest, meth->path, meth->iface, meth->member);
        if (r < 0)
                return r;
        if (chance(10))
                (void) sd_bus_message_set_allow_interactive_authorization(m, true);
        if (strcmp(meth->iface, PROPS_IFACE) == 0 && sig == meth->sig) {
                /* A real interface name most of the time, so that the property code runs. */
                r = sd_bus_message_append(m, "s",
                                          chance(85) ? (strcmp(meth->path, EC_PATH) == 0 ? EC_IFACE : IFACE)
                                                     : PICK(interfaces));
                if (r >= 0 && strlen(sig) >= 2) /* Get, Set: the property */
                        r = sd_bus_message_append(m, "s", PICK(properties));
                if (r >= 0 && strlen(sig) >= 3) /* Set: the value */
                        r = append_variant(m);
        } else if (meth->strings && sig == meth->sig && chance(80)) {
                size_t n = 0;
                while (meth->strings[n])
                        n++;
                r = sd_bus_message_append(m, "s", meth->strings[rnd_below(n)]);
        } else
                r = append_args(m, sig);
        if (r < 0)
                return 0; /* a value sd-bus itself refuses to send (say, invalid UTF-8): skip */
        call = calloc(1, sizeof(*call));
        if (!call)
                return -ENOMEM;
        *call = (Call) {
                .worker = worker,
                .is_set = strcmp(meth->member, "Set") == 0,
                .is_stream = strcmp(meth->member, "AcquireStream") == 0,
                .is_claim = strncmp(meth->member, "Claim", 5) == 0 && strcmp(meth->iface, IFACE) == 0,
        };
        r = sd_bus_call_async(bus, &slot, m, on_reply, call, CALL_TIMEOUT);
        if (r < 0) {
                free(call);
                return r;
        }
        (void) sd_bus_slot_set_destroy_callback(slot, call_free);
        (void) sd_bus_slot_set_floating(slot, 1);
        stats[worker].sent++;
        return 0;
}

static int connect_bus(const char *address, sd_bus **ret)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, true);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

/* Pending replies on bus (the count of calls not yet answered). */
static uint64_t pending(int worker)
{
        const Stats *st = &stats[worker];
        return st->sent - st->replied - st->errors - st->unanswered - st->abandoned;
}

/* Connections kept open after their calls were answered, with whatever they hold (claims, streams):
 * many connections of one uid at once, as a hoarding user would have them. */
static sd_bus *held[HELD_MAX];

static void hold_bus(sd_bus *bus)
{
        for (size_t i = 0; i < HELD_MAX; i++)
                if (!held[i]) {
                        held[i] = bus;
                        return;
                }
        size_t i = rnd_below(HELD_MAX);
        sd_bus_flush_close_unref(held[i]);
        held[i] = bus;
}

/* Reads what the held connections received (nothing is expected but the bus' own messages). */
static void process_held(void)
{
        for (size_t i = 0; i < HELD_MAX; i++) {
                if (!held[i])
                        continue;
                while (sd_bus_process(held[i], NULL) > 0)
                        ;
                if (sd_bus_is_open(held[i]) <= 0 || chance(2))
                        held[i] = sd_bus_flush_close_unref(held[i]);
        }
}

static void run_worker(int worker, const char *address, uint64_t seed, uint64_t deadline)
{
        rng_state = seed ? seed : 1;

        while (now_usec() < deadline) {
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
                unsigned batch = 1 + rnd_below(BATCH_MAX), in_flight = 1 + rnd_below(IN_FLIGHT_MAX);
                uint64_t base = pending(worker);

                process_held();
                if (chance(30))
                        close_some_fds();
                stats[worker].connects++;
                if (connect_bus(address, &bus) < 0) {
                        stats[worker].connect_failures++;
                        usleep(10000);
                        continue;
                }
                for (unsigned i = 0; i < batch; i++) {
                        while (pending(worker) - base >= in_flight) {
                                if (sd_bus_process(bus, NULL) > 0)
                                        continue;
                                if (sd_bus_wait(bus, 100000) < 0)
                                        break;
                                if (sd_bus_is_open(bus) <= 0)
                                        break;
                        }
                        if (send_random_call(bus, worker) < 0)
                                break;
                }
                if (chance(25)) {
                        /* Vanish with calls in flight: the daemon must cope; they are not counted. */
                        uint64_t left = pending(worker) - base;
                        stats[worker].abandoned += left;
                        continue;
                }
                /* Otherwise wait for every answer (sd-bus answers NoReply itself after CALL_TIMEOUT). */
                while (pending(worker) > base) {
                        int r = sd_bus_process(bus, NULL);
                        if (r < 0)
                                break;
                        if (r == 0 && sd_bus_wait(bus, 1000000) < 0)
                                break;
                }
                if (pending(worker) > base) {
                        stats[worker].unanswered += pending(worker) - base;
                        snprintf(stats[worker].finding, sizeof(stats[worker].finding),
                                 "the connection broke with calls unanswered");
                } else if (chance(20))
                        hold_bus(TAKE_PTR(bus));
        }
        for (size_t i = 0; i < HELD_MAX; i++)
                held[i] = sd_bus_flush_close_unref(held[i]);
        while (n_held_fds > 0)
                close(held_fds[--n_held_fds]);
}

static int drop_to(uid_t uid)
{
        if (geteuid() != 0 || uid == 0)
                return 0;
        if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
                return -errno;
        return 0;
}

static long rss_kb(pid_t pid)
{
        char path[64], line[256];
        long kb = -1;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
                        break;
        fclose(f);
        return kb;
}

static int findings;
static void finding(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void finding(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        printf("busfuzz: FINDING: ");
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
        findings++;
}

/* --polkit-rules: the real polkitd's rules file the parent rewrites (polkitd reloads it); NULL: the mock. */
static const char *polkit_rules;

/* Allows the actions to every unprivileged subject in a rules file, written whole and renamed over it. */
static void write_polkit_rules(const char *const *actions, int n)
{
        char tmp[4096];
        FILE *f;

        snprintf(tmp, sizeof(tmp), "%s.tmp", polkit_rules);
        f = fopen(tmp, "we");
        if (!f) {
                fprintf(stderr, "busfuzz: cannot write %s: %m\n", tmp);
                return;
        }
        fprintf(f, "// busfuzz: flipped during the run, removed by run-busfuzz.sh\n"
                   "polkit.addRule(function(action, subject) {\n");
        for (int i = 0; i < n; i++)
                fprintf(f, "        if (action.id == \"%s\") return polkit.Result.YES;\n", actions[i]);
        fprintf(f, "});\n");
        if (fchmod(fileno(f), 0644) < 0 || fclose(f) != 0 || rename(tmp, polkit_rules) < 0)
                fprintf(stderr, "busfuzz: cannot write %s: %m\n", polkit_rules);
}

static void set_polkit_allowed(sd_bus *bus, bool configure, bool calibrate, bool ec_raw)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *actions[3];
        int n = 0, r;

        if (configure)
                actions[n++] = "org.thinkpad.accelerometer.configure";
        if (calibrate)
                actions[n++] = "org.thinkpad.accelerometer.calibrate";
        if (ec_raw)
                actions[n++] = "org.thinkpad.ec.raw";
        if (polkit_rules) {
                write_polkit_rules(actions, n);
                return;
        }
        r = sd_bus_call_method(bus, POLKIT_NAME, POLKIT_PATH, MOCK_IFACE, "SetAllowed", &error, NULL, "as",
                               n, n > 0 ? actions[0] : NULL, n > 1 ? actions[1] : NULL,
                               n > 2 ? actions[2] : NULL);
        if (r < 0)
                fprintf(stderr, "busfuzz: cannot set the polkit mock: %s\n", error.message ?: strerror(-r));
}

/* The EC's own configuration (0x17/0x82: [1] status, [2..3] EC rate, [4] filter order), retried past
 * injected faults and pending changes. */
/* Reads the EC's rate and filter order (row 0x17/0x82) through ReadRow, trying again while the daemon
 * refuses or the EC says it is busy: after a flood, polkit (the real one, loaded) may still be answering
 * the flood's checks for a while. Gives up after EC_CONFIG_WAIT_USEC, with why the last try failed in
 * reason. */
static int read_ec_config(sd_bus *bus, unsigned *ret_rate, unsigned *ret_order, char *reason,
                          size_t reason_size)
{
        uint64_t deadline = now_usec() + EC_CONFIG_WAIT_USEC;

        snprintf(reason, reason_size, "no attempt");
        do {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
                uint8_t row[16] = {0x17, 0x82};
                const uint8_t *data;
                size_t len;
                int r;

                r = sd_bus_message_new_method_call(bus, &m, NAME, EC_PATH, EC_IFACE, "ReadRow");
                if (r >= 0)
                        r = sd_bus_message_append(m, "q", (uint16_t) 0x0003);
                if (r >= 0)
                        r = sd_bus_message_append_array(m, 'y', row, sizeof(row));
                if (r >= 0)
                        r = sd_bus_message_append(m, "q", (uint16_t) 0x001f);
                if (r >= 0)
                        r = sd_bus_call(bus, m, CALL_TIMEOUT, &error, &reply);
                if (r >= 0)
                        r = sd_bus_message_read_array(reply, 'y', (const void **) &data, &len);
                if (r < 0)
                        snprintf(reason, reason_size, "%s",
                                 sd_bus_error_is_set(&error) ? error.message ?: error.name : strerror(-r));
                else if (len != 16)
                        snprintf(reason, reason_size, "a row of %zu bytes", len);
                else if (data[1] & 0x02)
                        snprintf(reason, reason_size, "the EC's status byte 0x%02x says busy", data[1]);
                else {
                        *ret_rate = data[2] | data[3] << 8;
                        *ret_order = data[4];
                        return 0;
                }
                usleep(20000);
        } while (now_usec() < deadline);
        return -EIO;
}

static int get_u(sd_bus *bus, const char *prop, unsigned *ret)
{
        return sd_bus_get_property_trivial(bus, NAME, PATH, IFACE, prop, NULL, 'u', ret);
}

static int get_d(sd_bus *bus, const char *prop, double *ret)
{
        return sd_bus_get_property_trivial(bus, NAME, PATH, IFACE, prop, NULL, 'd', ret);
}

static int get_b(sd_bus *bus, const char *prop, bool *ret)
{
        int b, r = sd_bus_get_property_trivial(bus, NAME, PATH, IFACE, prop, NULL, 'b', &b);
        if (r >= 0)
                *ret = b;
        return r;
}

static void check_daemon(const char *address, pid_t pid, const char *state_file)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_strv_free_ char **disks = NULL;
        _cleanup_free_ char *load_error = NULL;
        unsigned rate = 0, ratio = 0, order = 0, ec_rate = 0, ec_order = 0;
        char reason[256];
        double tilt = 0, sens = 0;
        bool invert = false, has = false, switched = false;
        StateConfig file;
        struct stat st;
        int r;

        if (kill(pid, 0) < 0) {
                finding("tpacceld (pid %d) is gone", (int) pid);
                return;
        }
        r = connect_bus(address, &bus);
        if (r < 0) {
                finding("cannot connect to the bus: %s", strerror(-r));
                return;
        }
        r = sd_bus_call_method(bus, NAME, PATH, "org.freedesktop.DBus.Peer", "Ping", &error, NULL, "");
        if (r < 0) {
                finding("tpacceld does not answer Ping: %s", error.message ?: strerror(-r));
                return;
        }
        set_polkit_allowed(bus, true, true, true);

        r = get_u(bus, "SamplingRate", &rate);
        if (r >= 0)
                r = get_u(bus, "OversamplingRatio", &ratio);
        if (r >= 0)
                r = get_u(bus, "FilterOrder", &order);
        if (r >= 0)
                r = get_d(bus, "TiltStep", &tilt);
        if (r >= 0)
                r = get_d(bus, "ShockSensitivity", &sens);
        if (r >= 0)
                r = get_b(bus, "Invert", &invert);
        if (r >= 0)
                r = get_b(bus, "HasAccelerometer", &has);
        if (r >= 0)
                r = sd_bus_get_property_strv(bus, NAME, PATH, IFACE, "ProtectedDisks", &error, &disks);
        if (r < 0) {
                finding("cannot read the properties: %s", strerror(-r));
                return;
        }
        /* Every worker left: their claims and streams went with their connections (the daemon's one
         * NameOwnerChanged match), unless armed disk protection polls. A claim that outlived its
         * connection polls for ever; a daemon and bus still working through the flood's disconnects
         * (the sanitizer build beside other tests on a loaded machine) stop within seconds: the wait
         * ends as soon as polling stops, and only a minute of it is a finding. */
        for (int i = 0; i < POLLING_STOP_WAIT_TRIES; i++) {
                bool polling = true;
                if (get_b(bus, "Polling", &polling) < 0 || !polling || strv_length(disks) > 0)
                        break;
                if (i == POLLING_STOP_WAIT_TRIES - 1)
                        finding("still polling %d s after every client left: a claim outlived its "
                                "connection",
                                POLLING_STOP_WAIT_TRIES / 10);
                usleep(100000);
        }
        printf("busfuzz: daemon: SamplingRate %u, OversamplingRatio %u, FilterOrder %u, Invert %d, TiltStep "
               "%.17g, "
               "ShockSensitivity %.17g, %zu protected disk(s), HasAccelerometer %d\n",
               rate, ratio, order, invert, tilt, sens, strv_length(disks), has);

        /* The daemon as the unit runs it (User=, tests/bus/test-bus-limits.sh) owns its state file, and
         * the loader takes only a file of its own euid: read as that user. */
        if (geteuid() == 0 && stat(state_file, &st) == 0 && st.st_uid != 0 && seteuid(st.st_uid) == 0)
                switched = true;
        r = state_config_load(state_file, &file, NULL, &load_error);
        if (switched && seteuid(0) < 0)
                finding("cannot become root again after reading the state file: %s", strerror(errno));
        if (r == -ENOENT) {
                printf("busfuzz: no state file (nothing was ever saved): comparing with the defaults\n");
                state_config_init(&file);
        } else if (r < 0) {
                finding("the state file does not load: %s", load_error ?: strerror(-r));
                return;
        }
        if (file.sampling_rate != rate || file.oversampling_ratio != ratio || file.filter_order != order ||
            file.invert != invert || file.tilt_step != tilt || file.shock_sensitivity != sens ||
            !strv_equal(file.protected_disks ?: (char *[]) {NULL}, disks ?: (char *[]) {NULL}))
                finding("the properties disagree with the state file: file has %u, %u, %u, %d, %.17g, "
                        "%.17g, %zu disk(s)",
                        file.sampling_rate, file.oversampling_ratio, file.filter_order, file.invert,
                        file.tilt_step, file.shock_sensitivity, strv_length(file.protected_disks));
        state_config_done(&file);

        if (!has) {
                printf("busfuzz: no accelerometer (an injected 'absent'): EC configuration not compared\n");
                return;
        }
        r = read_ec_config(bus, &ec_rate, &ec_order, reason, sizeof(reason));
        if (r < 0) {
                finding("cannot read the EC's configuration (0x17/0x82) in %d s: %s",
                        (int) (EC_CONFIG_WAIT_USEC / 1000000), reason);
                return;
        }
        printf("busfuzz: EC (0x17/0x82): rate %u, filter order %u\n", ec_rate, ec_order);
        if (ec_rate != rate * ratio || ec_order != order)
                finding("the EC's configuration (rate %u, order %u) disagrees with the daemon's (%u x %u = "
                        "%u, %u)",
                        ec_rate, ec_order, rate, ratio, rate * ratio, order);
}

int main(int argc, char *argv[])
{
        static const struct option options[] = {
                {"address", required_argument, NULL, 'a'},
                {"pid", required_argument, NULL, 'p'},
                {"state-file", required_argument, NULL, 'f'},
                {"seconds", required_argument, NULL, 't'},
                {"seed", required_argument, NULL, 's'},
                {"rss-growth-max", required_argument, NULL, 'r'},
                {"workers", required_argument, NULL, 'w'},
                {"polkit-rules", required_argument, NULL, 'k'},
                {},
        };
        const char *address = NULL, *state_file = NULL;
        unsigned seconds = 30, workers = 6;
        long rss_growth_max = RSS_GROWTH_MAX;
        uint64_t seed = 0, deadline;
        bool seed_given = false;
        long rss_start, rss_end;
        _cleanup_free_ pid_t *children = NULL;
        pid_t pid = 0;
        Stats total = {};
        int c;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 'a':
                        address = optarg;
                        break;
                case 'p':
                        pid = (pid_t) atoi(optarg);
                        break;
                case 'f':
                        state_file = optarg;
                        break;
                case 't':
                        seconds = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 's':
                        seed = strtoull(optarg, NULL, 0);
                        seed_given = true;
                        break;
                case 'r':
                        rss_growth_max = strtol(optarg, NULL, 10);
                        break;
                case 'w':
                        workers = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 'k':
                        polkit_rules = optarg;
                        break;
                default:
                        return 2;
                }
        if (!address || pid <= 0 || !state_file || workers == 0 || workers > 64) {
                fprintf(stderr,
                        "usage: busfuzz --address=ADDR --pid=PID --state-file=PATH [--seconds=N] "
                        "[--seed=S] [--workers=1..64] [--rss-growth-max=KB] [--polkit-rules=PATH]\n");
                return 2;
        }
        if (!seed_given)
                seed = (uint64_t) time(NULL) ^ ((uint64_t) getpid() << 32);
        printf("busfuzz: seed %" PRIu64 " (reproduce with --seed=%" PRIu64 "), %u workers, %u s\n", seed,
               seed, workers, seconds);
        fflush(stdout);
        rng_state = seed;

        stats = mmap(NULL, sizeof(Stats) * workers, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
                     0);
        children = calloc(workers, sizeof(pid_t));
        if (stats == MAP_FAILED || !children)
                return 1;
        memset(stats, 0, sizeof(Stats) * workers);

        rss_start = rss_kb(pid);
        deadline = now_usec() + (uint64_t) seconds * 1000000ULL;
        for (unsigned i = 0; i < workers; i++) {
                uint64_t worker_seed = seed + 0x9e3779b97f4a7c15ULL * (i + 1);
                children[i] = fork();
                if (children[i] < 0)
                        return 1;
                if (children[i] == 0) {
                        /* A quarter root, the others several unprivileged users. */
                        static const uid_t uids[] = {0, UNPRIVILEGED, 1, 2, 3, UNPRIVILEGED, 1, 2};
                        uid_t uid = uids[i % ELEMENTSOF(uids)];
                        if (drop_to(uid) < 0) {
                                snprintf(stats[i].finding, sizeof(stats[i].finding), "cannot become uid %u",
                                         (unsigned) uid);
                                _exit(1);
                        }
                        run_worker((int) i, address, worker_seed, deadline);
                        _exit(0);
                }
        }

        /* Meanwhile: flip what polkit allows; now and then a reload. */
        {
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
                if (connect_bus(address, &bus) >= 0)
                        while (now_usec() < deadline) {
                                set_polkit_allowed(bus, chance(60), chance(60), chance(60));
                                if (chance(5))
                                        (void) kill(pid, SIGHUP);
                                usleep(200000 + rnd_below(800000));
                        }
        }

        for (unsigned i = 0; i < workers; i++) {
                int status;
                if (waitpid(children[i], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        finding("worker %u ended abnormally (status 0x%x)", i, (unsigned) status);
        }
        for (unsigned i = 0; i < workers; i++) {
                total.sent += stats[i].sent;
                total.replied += stats[i].replied;
                total.errors += stats[i].errors;
                total.abandoned += stats[i].abandoned;
                total.unanswered += stats[i].unanswered;
                total.connects += stats[i].connects;
                total.connect_failures += stats[i].connect_failures;
                total.set_succeeded += stats[i].set_succeeded;
                total.limits_exceeded += stats[i].limits_exceeded;
                total.busy += stats[i].busy;
                total.streams += stats[i].streams;
                total.claims += stats[i].claims;
                if (stats[i].finding[0])
                        finding("worker %u: %s", i, stats[i].finding);
        }
        printf("busfuzz: %" PRIu64 " calls on %" PRIu64 " connections: %" PRIu64 " replies, %" PRIu64
               " errors, %" PRIu64 " abandoned with their connection, %" PRIu64 " unanswered; %" PRIu64
               " connections failed\n",
               total.sent, total.connects, total.replied, total.errors, total.abandoned, total.unanswered,
               total.connect_failures);
        printf("busfuzz: %" PRIu64 " claims and %" PRIu64 " streams granted, %" PRIu64
               " LimitsExceeded, %" PRIu64 " Busy\n",
               total.claims, total.streams, total.limits_exceeded, total.busy);
        if (total.sent == 0 || total.replied == 0)
                finding("no call got through at all");
        if (total.set_succeeded > 0)
                finding("Properties.Set succeeded %" PRIu64 " time(s): no property is writable",
                        total.set_succeeded);

        check_daemon(address, pid, state_file);

        rss_end = rss_kb(pid);
        printf("busfuzz: RSS %ld kB at the start, %ld kB at the end (bound: +%ld kB%s)\n", rss_start,
               rss_end, rss_growth_max, rss_growth_max > 0 ? "" : ", not checked");
        if (rss_growth_max > 0 && rss_start > 0 && rss_end > rss_start + rss_growth_max)
                finding("RSS grew from %ld kB to %ld kB", rss_start, rss_end);

        printf("busfuzz: %s (seed %" PRIu64 ")\n", findings ? "FINDINGS" : "no finding", seed);
        return findings ? 1 : 0;
}
