/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sd-bus helper of bench-bus.py, in two roles:
 *
 *   sample-latency listen ADDRESS SECONDS
 *       Subscribes to org.thinkpad.Accelerometer.Sample, prints "ready", receives for SECONDS and prints
 *       one line with every readout-to-receipt latency in microseconds (the signal's time_usec against
 *       our CLOCK_MONOTONIC at receipt), space separated. One process per subscriber, as real clients.
 *
 *   sample-latency emit ADDRESS SECONDS RATE
 *       The reference sender: emits Sample signals at RATE Hz on the same path and interface, stamped
 *       with CLOCK_MONOTONIC right before sending. What listeners measure then is the floor of the bus
 *       and the clients alone (dbus-daemon's fan-out, scheduling); tpacceld's share is the difference.
 *
 *   sample-latency stream ADDRESS SECONDS
 *       A stream client: AcquireStream(), prints "ready", reads records for SECONDS and prints one line
 *       with every record's latency (time_usec against CLOCK_MONOTONIC at receipt), as listen does.
 *
 *   sample-latency stream-ref OUTDIR SECONDS RATE N
 *       The stream's reference sender: N socket pairs, N reader processes (forked, each writing its
 *       latencies to OUTDIR/ref-I.txt), and records sent to all of them at RATE Hz, stamped right
 *       before sending: the floor of the socket path and the clients alone. Prints "ready", then
 *       "cpu_per_round_us US": its own CPU time per round of sends (what the fan-out itself costs).
 *
 *   sample-latency wake-ref OUTDIR SECONDS RATE N
 *       The wake floor: N waiter processes sleeping on one futex word in a shared page, woken all at once
 *       by one FUTEX_WAKE per round at RATE Hz, no data sent (each reads the round's time from the page).
 *       The cheapest way for one process to wake N others per readout; prints and writes as stream-ref. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_PATH      "/org/thinkpad/Accelerometer"
#define SAMPLE_INTERFACE "org.thinkpad.Accelerometer"
#define USEC_PER_SEC     1000000ULL
#define NSEC_PER_USEC    1000ULL
#define MAX_SAMPLES      100000
#define EMIT_RATE_MAX    1000
#define STREAM_REF_MAX   200

/* The stream's record (org.thinkpad.Accelerometer.xml, AcquireStream). */
typedef struct StreamRecord {
        uint64_t time_usec;
        int32_t x, y;
        uint32_t flags, reserved;
} StreamRecord;

static uint64_t now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / NSEC_PER_USEC;
}

static void sleep_until_usec(uint64_t t)
{
        struct timespec ts = {.tv_sec = t / USEC_PER_SEC, .tv_nsec = (t % USEC_PER_SEC) * NSEC_PER_USEC};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

typedef struct Latencies {
        uint64_t *v;
        size_t n;
} Latencies;

static int on_sample(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        Latencies *l = userdata;
        uint64_t now = now_usec(), t;
        int32_t x, y;

        if (sd_bus_message_read(m, "tii", &t, &x, &y) < 0 || l->n >= MAX_SAMPLES)
                return 0;
        l->v[l->n++] = now >= t ? now - t : 0;
        return 0;
}

static int connect_bus(const char *address, sd_bus **ret)
{
        sd_bus *bus = NULL;
        int r;

        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0) {
                sd_bus_unref(bus);
                return r;
        }
        *ret = bus;
        return 0;
}

static int listen_samples(const char *address, double seconds)
{
        sd_bus *bus = NULL;
        Latencies l = {};
        int r;

        l.v = calloc(MAX_SAMPLES, sizeof(uint64_t));
        if (!l.v)
                return -ENOMEM;
        r = connect_bus(address, &bus);
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, NULL, SAMPLE_PATH, SAMPLE_INTERFACE, "Sample", on_sample,
                                        &l);
        if (r < 0) {
                free(l.v);
                sd_bus_unref(bus);
                return r;
        }
        printf("ready\n");
        fflush(stdout);

        uint64_t end = now_usec() + (uint64_t) (seconds * USEC_PER_SEC);
        for (uint64_t now = now_usec(); now < end; now = now_usec()) {
                r = sd_bus_process(bus, NULL);
                if (r < 0)
                        break;
                if (r == 0)
                        (void) sd_bus_wait(bus, end - now);
        }

        for (size_t i = 0; i < l.n; i++)
                printf("%s%llu", i ? " " : "", (unsigned long long) l.v[i]);
        printf("\n");
        sd_bus_flush_close_unref(bus);
        free(l.v);
        return r < 0 ? r : 0;
}

static int emit_samples(const char *address, double seconds, unsigned rate)
{
        sd_bus *bus = NULL;
        int r;

        r = connect_bus(address, &bus);
        if (r < 0)
                return r;
        printf("ready\n");
        fflush(stdout);

        uint64_t period = USEC_PER_SEC / rate, next = now_usec() + period;
        uint64_t end = now_usec() + (uint64_t) (seconds * USEC_PER_SEC);
        for (; next < end; next += period) {
                sleep_until_usec(next);
                r = sd_bus_emit_signal(bus, SAMPLE_PATH, SAMPLE_INTERFACE, "Sample", "tii", now_usec(), 0,
                                       0);
                if (r < 0)
                        break;
                r = sd_bus_flush(bus);
                if (r < 0)
                        break;
        }
        sd_bus_flush_close_unref(bus);
        return r < 0 ? r : 0;
}

/* Reads records from fd until end (CLOCK_MONOTONIC usec) into l; stops early at EOF. */
static int read_records(int fd, uint64_t end, Latencies *l)
{
        for (uint64_t now = now_usec(); now < end; now = now_usec()) {
                struct pollfd p = {.fd = fd, .events = POLLIN};
                StreamRecord rec;
                ssize_t n;
                int r = poll(&p, 1, (int) ((end - now) / 1000 + 1));

                if (r < 0 && errno != EINTR)
                        return -errno;
                if (r <= 0)
                        continue;
                n = read(fd, &rec, sizeof(rec));
                if (n == 0)
                        return 0;
                if (n != (ssize_t) sizeof(rec))
                        return n < 0 ? -errno : -EBADMSG;
                now = now_usec();
                if (l->n < MAX_SAMPLES)
                        l->v[l->n++] = now >= rec.time_usec ? now - rec.time_usec : 0;
        }
        return 0;
}

static void print_latencies(FILE *f, const Latencies *l)
{
        for (size_t i = 0; i < l->n; i++)
                fprintf(f, "%s%llu", i ? " " : "", (unsigned long long) l->v[i]);
        fprintf(f, "\n");
}

static int stream_records(const char *address, double seconds)
{
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        Latencies l = {};
        uint32_t size = 0;
        int fd = -1, r;

        l.v = calloc(MAX_SAMPLES, sizeof(uint64_t));
        if (!l.v)
                return -ENOMEM;
        r = connect_bus(address, &bus);
        if (r >= 0)
                r = sd_bus_call_method(bus, "org.thinkpad.Accelerometer", SAMPLE_PATH, SAMPLE_INTERFACE,
                                       "AcquireStream", &error, &reply, "");
        if (r >= 0)
                r = sd_bus_message_read(reply, "hu", &fd, &size);
        if (r >= 0 && size != sizeof(StreamRecord))
                r = -EPROTO;
        if (r >= 0) {
                fd = fcntl(fd, F_DUPFD_CLOEXEC, 3); /* the message owns its fd */
                if (fd < 0)
                        r = -errno;
        }
        if (r < 0) {
                if (sd_bus_error_is_set(&error))
                        fprintf(stderr, "sample-latency stream: %s\n", error.message);
                goto out;
        }
        printf("ready\n");
        fflush(stdout);
        r = read_records(fd, now_usec() + (uint64_t) (seconds * USEC_PER_SEC), &l);
        print_latencies(stdout, &l);
out:
        if (fd >= 0)
                close(fd);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        free(l.v);
        return r < 0 ? r : 0;
}

/* Where reader I of a reference sender writes its latencies: OUTDIR/ref-I.txt. */
static void ref_result_path(char *buf, size_t size, const char *outdir, unsigned i)
{
        snprintf(buf, size, "%s/ref-%u.txt", outdir, i);
}

static int write_latencies(const char *path, const Latencies *l)
{
        FILE *f = fopen(path, "we");

        if (!f)
                return -errno;
        print_latencies(f, l);
        return fclose(f) == 0 ? 0 : -errno;
}

/* A reader child of stream-ref: reads until EOF (or SECONDS + 1) and writes its latencies to path. */
static int stream_ref_reader(int fd, const char *path, double seconds)
{
        Latencies l = {};
        int r;

        l.v = calloc(MAX_SAMPLES, sizeof(uint64_t));
        if (!l.v)
                return -ENOMEM;
        r = read_records(fd, now_usec() + (uint64_t) ((seconds + 1) * USEC_PER_SEC), &l);
        if (r >= 0)
                r = write_latencies(path, &l);
        free(l.v);
        return r;
}

/* One round of a reference sender, stamped with time_usec right before it goes out. */
typedef void (*RoundFunc)(uint64_t time_usec, void *userdata);

/* Calls round at rate Hz for seconds, then prints "cpu_per_round_us US": this process's CPU time per
 * round (the readers are children, not counted). */
static void paced_rounds(double seconds, unsigned rate, RoundFunc round, void *userdata)
{
        uint64_t period = USEC_PER_SEC / rate, next = now_usec() + period, rounds = 0;
        uint64_t end = now_usec() + (uint64_t) (seconds * USEC_PER_SEC);
        struct timespec cpu0, cpu1;

        printf("ready\n");
        fflush(stdout);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
        for (; next < end; next += period, rounds++) {
                sleep_until_usec(next);
                round(now_usec(), userdata);
        }
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
        printf("cpu_per_round_us %.1f\n",
               ((double) (cpu1.tv_sec - cpu0.tv_sec) * 1e6 + (double) (cpu1.tv_nsec - cpu0.tv_nsec) / 1e3) /
                       (double) (rounds ? rounds : 1));
        fflush(stdout);
}

/* Waits for the n reader children; -ECHILD if one failed. */
static int reap_readers(const pid_t *pids, unsigned n)
{
        int r = 0;

        for (unsigned i = 0; i < n; i++) {
                int status;
                if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        r = -ECHILD;
        }
        return r;
}

typedef struct StreamRef {
        int fds[STREAM_REF_MAX];
        unsigned n;
} StreamRef;

static void stream_ref_round(uint64_t time_usec, void *userdata)
{
        const StreamRef *s = userdata;
        StreamRecord rec = {.time_usec = time_usec};

        for (unsigned i = 0; i < s->n; i++)
                (void) send(s->fds[i], &rec, sizeof(rec), MSG_DONTWAIT | MSG_NOSIGNAL);
}

static int stream_ref(const char *outdir, double seconds, unsigned rate, unsigned n)
{
        StreamRef s = {.n = n};
        pid_t pids[STREAM_REF_MAX];

        for (unsigned i = 0; i < n; i++) {
                int pair[2];
                if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
                        return -errno;
                pids[i] = fork();
                if (pids[i] < 0)
                        return -errno;
                if (pids[i] == 0) {
                        char path[4096];
                        close(pair[0]);
                        for (unsigned j = 0; j < i; j++)
                                close(s.fds[j]);
                        ref_result_path(path, sizeof(path), outdir, i);
                        _exit(stream_ref_reader(pair[1], path, seconds) < 0 ? 1 : 0);
                }
                close(pair[1]);
                s.fds[i] = pair[0];
        }
        paced_rounds(seconds, rate, stream_ref_round, &s);
        for (unsigned i = 0; i < n; i++)
                close(s.fds[i]);
        return reap_readers(pids, n);
}

/* The wake floor's page, shared with the waiters: the round (the futex word; WAKE_REF_DONE ends) and
 * the time the sender stamped it. */
#define WAKE_REF_DONE UINT32_MAX
typedef struct WakePage {
        uint32_t round;
        uint32_t reserved;
        uint64_t time_usec;
} WakePage;

static long futex(uint32_t *word, int op, uint32_t val, const struct timespec *timeout)
{
        return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

/* A waiter child of wake-ref: sleeps on the round word until it changes, takes the latency of each round
 * it sees, until WAKE_REF_DONE or SECONDS + 1; writes its latencies to path. */
static int wake_ref_waiter(WakePage *page, const char *path, double seconds)
{
        uint64_t end = now_usec() + (uint64_t) ((seconds + 1) * USEC_PER_SEC);
        uint32_t seen = __atomic_load_n(&page->round, __ATOMIC_ACQUIRE);
        Latencies l = {};
        int r;

        l.v = calloc(MAX_SAMPLES, sizeof(uint64_t));
        if (!l.v)
                return -ENOMEM;
        for (uint64_t now = now_usec(); now < end; now = now_usec()) {
                uint32_t round = __atomic_load_n(&page->round, __ATOMIC_ACQUIRE);
                if (round == WAKE_REF_DONE)
                        break;
                if (round == seen) {
                        struct timespec left = {.tv_sec = (end - now) / USEC_PER_SEC,
                                                .tv_nsec = (end - now) % USEC_PER_SEC * NSEC_PER_USEC};
                        (void) futex(&page->round, FUTEX_WAIT, seen, &left);
                        continue;
                }
                seen = round;
                uint64_t t = __atomic_load_n(&page->time_usec, __ATOMIC_ACQUIRE);
                now = now_usec();
                if (l.n < MAX_SAMPLES)
                        l.v[l.n++] = now >= t ? now - t : 0;
        }
        r = write_latencies(path, &l);
        free(l.v);
        return r;
}

static void wake_ref_round(uint64_t time_usec, void *userdata)
{
        WakePage *page = userdata;

        __atomic_store_n(&page->time_usec, time_usec, __ATOMIC_RELEASE);
        __atomic_store_n(&page->round, page->round + 1 == WAKE_REF_DONE ? 1 : page->round + 1,
                         __ATOMIC_RELEASE);
        (void) futex(&page->round, FUTEX_WAKE, INT32_MAX, NULL);
}

/* The cheapest way one process can wake n others per readout: a shared page and one FUTEX_WAKE of all
 * n waiters per round, no data sent. What that costs the sender is the floor of any design that wakes
 * every client for every readout. */
static int wake_ref(const char *outdir, double seconds, unsigned rate, unsigned n)
{
        pid_t pids[STREAM_REF_MAX];
        WakePage *page;
        int r;

        page = mmap(NULL, sizeof(WakePage), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (page == MAP_FAILED)
                return -errno;
        *page = (WakePage){};
        for (unsigned i = 0; i < n; i++) {
                pids[i] = fork();
                if (pids[i] < 0)
                        return -errno;
                if (pids[i] == 0) {
                        char path[4096];
                        ref_result_path(path, sizeof(path), outdir, i);
                        _exit(wake_ref_waiter(page, path, seconds) < 0 ? 1 : 0);
                }
        }
        paced_rounds(seconds, rate, wake_ref_round, page);
        __atomic_store_n(&page->round, WAKE_REF_DONE, __ATOMIC_RELEASE);
        (void) futex(&page->round, FUTEX_WAKE, INT32_MAX, NULL);
        r = reap_readers(pids, n);
        munmap(page, sizeof(WakePage));
        return r;
}

static int usage(const char *argv0)
{
        fprintf(stderr,
                "usage: %s listen ADDRESS SECONDS | emit ADDRESS SECONDS RATE | stream ADDRESS SECONDS |\n"
                "       stream-ref OUTDIR SECONDS RATE N | wake-ref OUTDIR SECONDS RATE N\n",
                argv0);
        return 2;
}

static int parse_rate(const char *s, long max, unsigned *ret)
{
        char *end;
        long v = strtol(s, &end, 10);

        if (*end || v < 1 || v > max) {
                fprintf(stderr, "sample-latency: '%s' is out of range 1..%ld\n", s, max);
                return -EINVAL;
        }
        *ret = (unsigned) v;
        return 0;
}

int main(int argc, char *argv[])
{
        double seconds;
        int r;

        static const struct {
                const char *name;
                int argc;
        } roles[] = {{"listen", 4}, {"emit", 5}, {"stream", 4}, {"stream-ref", 6}, {"wake-ref", 6}};
        bool known = false;

        for (size_t i = 0; argc >= 2 && i < sizeof(roles) / sizeof(roles[0]); i++)
                if (strcmp(argv[1], roles[i].name) == 0)
                        known = argc == roles[i].argc;
        if (!known)
                return usage(argv[0]);
        seconds = atof(argv[3]);
        if (!(seconds > 0)) {
                fprintf(stderr, "sample-latency: SECONDS '%s' is not a positive number\n", argv[3]);
                return 2;
        }
        if (strcmp(argv[1], "listen") == 0)
                r = listen_samples(argv[2], seconds);
        else if (strcmp(argv[1], "stream") == 0)
                r = stream_records(argv[2], seconds);
        else if (strcmp(argv[1], "emit") == 0) {
                unsigned rate;
                if (parse_rate(argv[4], EMIT_RATE_MAX, &rate) < 0)
                        return 2;
                r = emit_samples(argv[2], seconds, rate);
        } else {
                unsigned rate, n;
                if (parse_rate(argv[4], EMIT_RATE_MAX, &rate) < 0 ||
                    parse_rate(argv[5], STREAM_REF_MAX, &n) < 0)
                        return 2;
                r = strcmp(argv[1], "stream-ref") == 0 ? stream_ref(argv[2], seconds, rate, n)
                                                       : wake_ref(argv[2], seconds, rate, n);
        }
        if (r < 0) {
                fprintf(stderr, "sample-latency %s: %s\n", argv[1], strerror(-r));
                return 1;
        }
        return 0;
}
