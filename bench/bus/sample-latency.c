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
 *       The cheapest way for one process to wake N others per readout; prints and writes as stream-ref.
 *
 *   sample-latency ring-ref OUTDIR SECONDS RATE N [OFFSET_US]
 *       The self-timed shared-memory ring: the sender writes each round's record (stamped right before)
 *       into a ring of 64 seqlocked slots in a shared region and wakes nobody; N reader processes each
 *       wake on their own timerfd OFFSET_US (default 300) after every scheduled round (the schedule is
 *       in the region) and read all records new since their last, writing their latencies to
 *       OUTDIR/ring-I.txt. A reader that finds nothing new (the sender is late) sleeps on a futex the
 *       sender wakes only then. Prints "ready", "cpu_per_round_us US", then "ring_lapped N" (records
 *       lost to the sender overtaking a reader by more than 64), "ring_reader_waits N" (those fallback
 *       sleeps) and "ring_sender_wakes N" (the sender's futex wakes for them). */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_PATH              "/org/thinkpad/Accelerometer"
#define SAMPLE_INTERFACE         "org.thinkpad.Accelerometer"
#define USEC_PER_SEC             1000000ULL
#define NSEC_PER_USEC            1000ULL
#define MAX_SAMPLES              100000
#define EMIT_RATE_MAX            1000
#define STREAM_REF_MAX           200
#define RING_OFFSET_DEFAULT_USEC 300

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

/* Adds the latency of a readout stamped time_usec and received at now (0 if the clocks say the future);
 * drops it once MAX_SAMPLES are held. */
static void latencies_add(Latencies *l, uint64_t now, uint64_t time_usec)
{
        if (l->n < MAX_SAMPLES)
                l->v[l->n++] = now >= time_usec ? now - time_usec : 0;
}

static int on_sample(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        Latencies *l = userdata;
        uint64_t now = now_usec(), t;
        int32_t x, y;

        if (sd_bus_message_read(m, "tii", &t, &x, &y) >= 0)
                latencies_add(l, now, t);
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
        if (r >= 0) {
                /* tpacceld sends Sample only to subscribers; the reference sender has no such method. */
                int k = sd_bus_call_method(bus, "org.thinkpad.Accelerometer", SAMPLE_PATH, SAMPLE_INTERFACE,
                                           "SubscribeSamples", NULL, NULL, "");
                if (k < 0)
                        fprintf(stderr, "sample-latency: SubscribeSamples: %s (a reference run?)\n",
                                strerror(-k));
        }
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
                latencies_add(l, now_usec(), rec.time_usec);
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

static int write_latencies(const char *path, const Latencies *l)
{
        FILE *f = fopen(path, "we");

        if (!f)
                return -errno;
        print_latencies(f, l);
        return fclose(f) == 0 ? 0 : -errno;
}

/* What reader child I of a reference sender does: takes latencies into l until end (CLOCK_MONOTONIC
 * usec, SECONDS + 1 from its start) or until its sender is done; 0 or -errno. */
typedef int (*ReaderFunc)(unsigned i, uint64_t end, Latencies *l, void *userdata);

/* Runs reader I in this (child) process and writes its latencies to OUTDIR/PREFIX-I.txt. */
static int run_reader(unsigned i, const char *outdir, const char *prefix, double seconds, ReaderFunc reader,
                      void *userdata)
{
        char path[4096];
        Latencies l = {};
        int r;

        l.v = calloc(MAX_SAMPLES, sizeof(uint64_t));
        if (!l.v)
                return -ENOMEM;
        r = reader(i, now_usec() + (uint64_t) ((seconds + 1) * USEC_PER_SEC), &l, userdata);
        snprintf(path, sizeof(path), "%s/%s-%u.txt", outdir, prefix, i);
        if (r >= 0)
                r = write_latencies(path, &l);
        free(l.v);
        return r;
}

/* Forks n reader children (pids), child I running reader as run_reader() does and exiting 0, or 1 if it
 * failed. 0 or -errno (fork); the children forked before a failure run to their end. */
static int fork_readers(unsigned n, const char *outdir, const char *prefix, double seconds,
                        ReaderFunc reader, void *userdata, pid_t *pids)
{
        for (unsigned i = 0; i < n; i++) {
                pids[i] = fork();
                if (pids[i] < 0)
                        return -errno;
                if (pids[i] == 0)
                        _exit(run_reader(i, outdir, prefix, seconds, reader, userdata) < 0 ? 1 : 0);
        }
        return 0;
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

/* The rounds of a reference sender: the first at first_usec, then one every period_usec until end_usec
 * (CLOCK_MONOTONIC). Decided before the rounds start, so that a sender can publish it to its readers. */
typedef struct Schedule {
        uint64_t first_usec, period_usec, end_usec;
} Schedule;

/* rate Hz for seconds, the first round one period from now. */
static Schedule schedule_rounds(double seconds, unsigned rate)
{
        uint64_t now = now_usec(), period = USEC_PER_SEC / rate;

        return (Schedule) {.first_usec = now + period,
                           .period_usec = period,
                           .end_usec = now + (uint64_t) (seconds * USEC_PER_SEC)};
}

/* One round of a reference sender, stamped with time_usec right before it goes out. */
typedef void (*RoundFunc)(uint64_t time_usec, void *userdata);

/* Prints "ready", calls round at each time of the schedule (sleeping until then), then prints
 * "cpu_per_round_us US": this process's CPU time per round (the readers are children, not counted). */
static void paced_rounds(const Schedule *schedule, RoundFunc round, void *userdata)
{
        struct timespec cpu0, cpu1;
        uint64_t rounds = 0;

        printf("ready\n");
        fflush(stdout);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
        for (uint64_t next = schedule->first_usec; next < schedule->end_usec;
             next += schedule->period_usec, rounds++) {
                sleep_until_usec(next);
                round(now_usec(), userdata);
        }
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
        printf("cpu_per_round_us %.1f\n",
               ((double) (cpu1.tv_sec - cpu0.tv_sec) * 1e6 + (double) (cpu1.tv_nsec - cpu0.tv_nsec) / 1e3) /
                       (double) (rounds ? rounds : 1));
        fflush(stdout);
}

/* A MAP_SHARED anonymous region of size bytes, zeroed, that forked readers share; NULL with errno set. */
static void *map_shared(size_t size)
{
        void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

        return p == MAP_FAILED ? NULL : p;
}

static long futex(uint32_t *word, int op, uint32_t val, const struct timespec *timeout)
{
        return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

static struct timespec timespec_from_usec(uint64_t usec)
{
        return (struct timespec) {.tv_sec = usec / USEC_PER_SEC,
                                  .tv_nsec = usec % USEC_PER_SEC * NSEC_PER_USEC};
}

/* stream-ref: the sender's ends of the socket pairs (fds) and the readers' (peers). */
typedef struct StreamRef {
        int fds[STREAM_REF_MAX];
        int peers[STREAM_REF_MAX];
        unsigned n;
} StreamRef;

/* A reader child of stream-ref: keeps only its own end, reads until EOF (or end). */
static int stream_ref_reader(unsigned i, uint64_t end, Latencies *l, void *userdata)
{
        const StreamRef *s = userdata;

        for (unsigned j = 0; j < s->n; j++) {
                close(s->fds[j]);
                if (j != i)
                        close(s->peers[j]);
        }
        return read_records(s->peers[i], end, l);
}

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
        Schedule schedule;
        int r;

        for (unsigned i = 0; i < n; i++) {
                int pair[2];
                if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
                        return -errno;
                s.fds[i] = pair[0];
                s.peers[i] = pair[1];
        }
        r = fork_readers(n, outdir, "ref", seconds, stream_ref_reader, &s, pids);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < n; i++)
                close(s.peers[i]);
        schedule = schedule_rounds(seconds, rate);
        paced_rounds(&schedule, stream_ref_round, &s);
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

/* A waiter child of wake-ref: sleeps on the round word until it changes, takes the latency of each round
 * it sees, until WAKE_REF_DONE or end. */
static int wake_ref_waiter(unsigned i, uint64_t end, Latencies *l, void *userdata)
{
        WakePage *page = userdata;
        uint32_t seen = __atomic_load_n(&page->round, __ATOMIC_ACQUIRE);

        (void) i;
        for (uint64_t now = now_usec(); now < end; now = now_usec()) {
                uint32_t round = __atomic_load_n(&page->round, __ATOMIC_ACQUIRE);
                if (round == WAKE_REF_DONE)
                        break;
                if (round == seen) {
                        struct timespec left = timespec_from_usec(end - now);
                        (void) futex(&page->round, FUTEX_WAIT, seen, &left);
                        continue;
                }
                seen = round;
                latencies_add(l, now_usec(), __atomic_load_n(&page->time_usec, __ATOMIC_ACQUIRE));
        }
        return 0;
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
        Schedule schedule;
        WakePage *page;
        int r;

        page = map_shared(sizeof(WakePage));
        if (!page)
                return -errno;
        r = fork_readers(n, outdir, "ref", seconds, wake_ref_waiter, page, pids);
        if (r < 0)
                return r;
        schedule = schedule_rounds(seconds, rate);
        paced_rounds(&schedule, wake_ref_round, page);
        __atomic_store_n(&page->round, WAKE_REF_DONE, __ATOMIC_RELEASE);
        (void) futex(&page->round, FUTEX_WAKE, INT32_MAX, NULL);
        r = reap_readers(pids, n);
        munmap(page, sizeof(WakePage));
        return r;
}

/* The self-timed ring: RING_SLOTS records, each slot under a seqlock (seq odd while the sender writes
 * it), and which record it holds (index: 0, 1, ... as published; uint32_t wraps after 49 days at
 * 1000 Hz, and all index arithmetic is modulo 2^32). */
#define RING_SLOTS 64
typedef struct RingSlot {
        uint32_t seq;
        uint32_t index;
        StreamRecord rec;
} RingSlot;

/* The ring's shared region. head: records published so far (also the fallback's futex word); waiters:
 * readers asleep on head (the sender wakes only when nonzero); started: set to 1 (and woken, once) when
 * the schedule is; phase_usec, period_usec: the schedule (first round, CLOCK_MONOTONIC, and period);
 * done: no more rounds; lapped, reader_waits: the readers' totals of records lost to the sender
 * overtaking them and of fallback waits, added at their end. */
typedef struct Ring {
        uint32_t head;
        uint32_t waiters;
        uint32_t started;
        uint32_t done;
        uint64_t phase_usec;
        uint64_t period_usec;
        uint64_t lapped;
        uint64_t reader_waits;
        RingSlot slots[RING_SLOTS];
} Ring;

/* The sender's side of ring-ref: the region, when readers read after each round, and how many futex
 * wakes its rounds made. */
typedef struct RingRef {
        Ring *ring;
        uint64_t offset_usec;
        uint64_t sender_wakes;
} RingRef;

/* The sender (the only writer) puts rec in the next slot under its seqlock (odd, fenced, data, even with
 * release), publishes it (head, sequentially consistent against the readers' waiter count), and wakes
 * the fallback's waiters only if there are any: true if it made a wake syscall. */
static bool ring_publish(Ring *ring, const StreamRecord *rec)
{
        uint32_t index = __atomic_load_n(&ring->head, __ATOMIC_RELAXED);
        RingSlot *slot = &ring->slots[index % RING_SLOTS];
        uint32_t seq = __atomic_load_n(&slot->seq, __ATOMIC_RELAXED);

        __atomic_store_n(&slot->seq, seq + 1, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE); /* the odd seq before any of the data */
        __atomic_store_n(&slot->index, index, __ATOMIC_RELAXED);
        __atomic_store_n(&slot->rec.time_usec, rec->time_usec, __ATOMIC_RELAXED);
        __atomic_store_n(&slot->rec.x, rec->x, __ATOMIC_RELAXED);
        __atomic_store_n(&slot->rec.y, rec->y, __ATOMIC_RELAXED);
        __atomic_store_n(&slot->rec.flags, rec->flags, __ATOMIC_RELAXED);
        __atomic_store_n(&slot->seq, seq + 2, __ATOMIC_RELEASE);

        __atomic_store_n(&ring->head, index + 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&ring->waiters, __ATOMIC_SEQ_CST) == 0)
                return false;
        (void) futex(&ring->head, FUTEX_WAKE, INT32_MAX, NULL);
        return true;
}

/* A reader's copy of record index from its slot, retried until the seqlock shows no write overlapped
 * it; -ESTALE if the slot holds another record by then (the sender lapped the reader). */
static int ring_read(Ring *ring, uint32_t index, StreamRecord *ret)
{
        RingSlot *slot = &ring->slots[index % RING_SLOTS];
        uint32_t seq, held;

        for (;;) {
                seq = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);
                if (seq & 1) {
                        sched_yield(); /* the sender is mid-write, maybe preempted on our core */
                        continue;
                }
                held = __atomic_load_n(&slot->index, __ATOMIC_RELAXED);
                ret->time_usec = __atomic_load_n(&slot->rec.time_usec, __ATOMIC_RELAXED);
                ret->x = __atomic_load_n(&slot->rec.x, __ATOMIC_RELAXED);
                ret->y = __atomic_load_n(&slot->rec.y, __ATOMIC_RELAXED);
                ret->flags = __atomic_load_n(&slot->rec.flags, __ATOMIC_RELAXED);
                __atomic_thread_fence(__ATOMIC_ACQUIRE); /* the data before the second seq */
                if (__atomic_load_n(&slot->seq, __ATOMIC_RELAXED) == seq)
                        break;
        }
        return held == index ? 0 : -ESTALE;
}

/* Reads every record published since *next into l (latency at reading), advancing *next; counts in
 * *lapped the records the sender overwrote before we read them (more than RING_SLOTS behind). */
static void ring_drain(Ring *ring, uint32_t *next, Latencies *l, uint64_t *lapped)
{
        uint32_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);

        if (head - *next > RING_SLOTS) {
                *lapped += head - RING_SLOTS - *next;
                *next = head - RING_SLOTS;
        }
        for (; *next != head; (*next)++) {
                StreamRecord rec;
                if (ring_read(ring, *next, &rec) < 0)
                        (*lapped)++;
                else
                        latencies_add(l, now_usec(), rec.time_usec);
        }
}

/* The fallback of a reader that woke and found the round it woke for not yet published (the sender is
 * late): counts itself in waiters and sleeps on head while it is still head_seen, one period at most. */
static void ring_wait(Ring *ring, uint32_t head_seen)
{
        struct timespec period = timespec_from_usec(ring->period_usec);

        __atomic_add_fetch(&ring->waiters, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&ring->head, __ATOMIC_SEQ_CST) == head_seen)
                (void) futex(&ring->head, FUTEX_WAIT, head_seen, &period);
        __atomic_sub_fetch(&ring->waiters, 1, __ATOMIC_SEQ_CST);
}

/* A reader child of ring-ref: waits for the schedule, arms its own timerfd at phase + k * period +
 * offset, and on each expiry reads all new records (the fallback first if round k is not published
 * yet), until the sender is done or end; adds its lapped records and fallback waits to the ring's
 * totals. */
static int ring_ref_reader(unsigned i, uint64_t end, Latencies *l, void *userdata)
{
        const RingRef *ref = userdata;
        Ring *ring = ref->ring;
        uint64_t lapped = 0, waits = 0;
        uint32_t next = 0, due = 0; /* the next record to read; the rounds due by the timer's expiries */
        int tfd, r = 0;

        (void) i;
        while (__atomic_load_n(&ring->started, __ATOMIC_ACQUIRE) == 0) {
                uint64_t now = now_usec();
                struct timespec left;
                if (now >= end)
                        return -ETIMEDOUT;
                left = timespec_from_usec(end - now);
                (void) futex(&ring->started, FUTEX_WAIT, 0, &left);
        }
        tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
        if (tfd < 0)
                return -errno;
        struct itimerspec timer = {.it_value = timespec_from_usec(ring->phase_usec + ref->offset_usec),
                                   .it_interval = timespec_from_usec(ring->period_usec)};
        if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &timer, NULL) < 0) {
                r = -errno;
                close(tfd);
                return r;
        }
        while (now_usec() < end) {
                uint64_t expirations;
                if (read(tfd, &expirations, sizeof(expirations)) < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        break;
                }
                /* Waiting for any new record instead would lock a reader that once read late onto the
                 * sender's rounds, one ahead of its timer, and the sender would wake it every round. */
                due += (uint32_t) expirations;
                bool done = __atomic_load_n(&ring->done, __ATOMIC_ACQUIRE);
                uint32_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
                if (!done && (int32_t) (head - due) < 0) {
                        ring_wait(ring, head);
                        waits++;
                }
                ring_drain(ring, &next, l, &lapped);
                if (done)
                        break;
        }
        close(tfd);
        __atomic_add_fetch(&ring->lapped, lapped, __ATOMIC_RELAXED);
        __atomic_add_fetch(&ring->reader_waits, waits, __ATOMIC_RELAXED);
        return r;
}

static void ring_ref_round(uint64_t time_usec, void *userdata)
{
        RingRef *ref = userdata;
        StreamRecord rec = {.time_usec = time_usec};

        if (ring_publish(ref->ring, &rec))
                ref->sender_wakes++;
}

/* The self-timed shared-memory ring: the sender publishes each round's record to a ring in a shared
 * region and wakes nobody; n readers wake on their own timers offset_usec after each scheduled round.
 * Prints, after cpu_per_round_us, "ring_lapped N", "ring_reader_waits N" and "ring_sender_wakes N". */
static int ring_ref(const char *outdir, double seconds, unsigned rate, unsigned n, uint64_t offset_usec)
{
        pid_t pids[STREAM_REF_MAX];
        RingRef ref = {.offset_usec = offset_usec};
        Schedule schedule;
        int r;

        ref.ring = map_shared(sizeof(Ring));
        if (!ref.ring)
                return -errno;
        r = fork_readers(n, outdir, "ring", seconds, ring_ref_reader, &ref, pids);
        if (r < 0)
                return r;
        schedule = schedule_rounds(seconds, rate);
        ref.ring->phase_usec = schedule.first_usec;
        ref.ring->period_usec = schedule.period_usec;
        __atomic_store_n(&ref.ring->started, 1, __ATOMIC_RELEASE);
        (void) futex(&ref.ring->started, FUTEX_WAKE, INT32_MAX, NULL);
        paced_rounds(&schedule, ring_ref_round, &ref);
        __atomic_store_n(&ref.ring->done, 1, __ATOMIC_SEQ_CST);
        (void) futex(&ref.ring->head, FUTEX_WAKE, INT32_MAX, NULL);
        r = reap_readers(pids, n);
        printf("ring_lapped %llu\nring_reader_waits %llu\nring_sender_wakes %llu\n",
               (unsigned long long) ref.ring->lapped, (unsigned long long) ref.ring->reader_waits,
               (unsigned long long) ref.sender_wakes);
        munmap(ref.ring, sizeof(Ring));
        return r;
}

static int usage(const char *argv0)
{
        fprintf(stderr,
                "usage: %s listen ADDRESS SECONDS | emit ADDRESS SECONDS RATE | stream ADDRESS SECONDS |\n"
                "       stream-ref OUTDIR SECONDS RATE N | wake-ref OUTDIR SECONDS RATE N |\n"
                "       ring-ref OUTDIR SECONDS RATE N [OFFSET_US]\n",
                argv0);
        return 2;
}

/* Parses s as what (named in the error) in min..max. */
static int parse_bounded(const char *s, const char *what, long min, long max, unsigned *ret)
{
        char *end;
        long v = strtol(s, &end, 10);

        if (!*s || *end || v < min || v > max) {
                fprintf(stderr, "sample-latency: %s '%s' is out of range %ld..%ld\n", what, s, min, max);
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
                int argc_min, argc_max;
        } roles[] = {{"listen", 4, 4},     {"emit", 5, 5},     {"stream", 4, 4},
                     {"stream-ref", 6, 6}, {"wake-ref", 6, 6}, {"ring-ref", 6, 7}};
        bool known = false;

        for (size_t i = 0; argc >= 2 && i < sizeof(roles) / sizeof(roles[0]); i++)
                if (strcmp(argv[1], roles[i].name) == 0)
                        known = argc >= roles[i].argc_min && argc <= roles[i].argc_max;
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
                if (parse_bounded(argv[4], "RATE", 1, EMIT_RATE_MAX, &rate) < 0)
                        return 2;
                r = emit_samples(argv[2], seconds, rate);
        } else {
                unsigned rate, n, offset = RING_OFFSET_DEFAULT_USEC;
                if (parse_bounded(argv[4], "RATE", 1, EMIT_RATE_MAX, &rate) < 0 ||
                    parse_bounded(argv[5], "N", 1, STREAM_REF_MAX, &n) < 0 ||
                    (argc > 6 && parse_bounded(argv[6], "OFFSET_US", 0, USEC_PER_SEC, &offset) < 0))
                        return 2;
                if (strcmp(argv[1], "stream-ref") == 0)
                        r = stream_ref(argv[2], seconds, rate, n);
                else if (strcmp(argv[1], "wake-ref") == 0)
                        r = wake_ref(argv[2], seconds, rate, n);
                else
                        r = ring_ref(argv[2], seconds, rate, n, offset);
        }
        if (r < 0) {
                fprintf(stderr, "sample-latency %s: %s\n", argv[1], strerror(-r));
                return 1;
        }
        return 0;
}
