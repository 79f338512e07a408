/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unit-sandbox-exec: runs COMMAND under the seccomp half of a systemd unit's sandbox, the way systemd's
 * exec_child() applies it (systemd 252, src/core/execute.c and src/shared/seccomp-util.c): after the
 * uid switch (the caller runs this through setpriv), each setting one filter, the system call filter
 * last, then execve(). For tests/bus/test-real-polkitd.sh, which reads the settings from the shipped
 * unit and passes them here; systemd is not PID 1 on the test machines.
 *
 *   unit-sandbox-exec [OPTION...] COMMAND [ARG...]
 *     --system-call-filter=[~]NAME,...     SystemCallFilter= with the groups already expanded
 *                                          (systemd-analyze syscall-filter): an allow list, or with ~ a
 *                                          deny list. Names libseccomp does not know are skipped, as
 *                                          systemd does for the names of its groups.
 *     --known-system-calls=NAME,...        the system calls systemd knows (@known, expanded): with an
 *                                          allow list, those refused; any other call fails ENOSYS, as
 *                                          systemd >= 247 does. Without it every other call is refused.
 *     --system-call-error-number=ERRNO     SystemCallErrorNumber=: a name (EPERM) or number, or "kill".
 *                                          Without it a refused call kills the process (SIGSYS).
 *     --system-call-architectures=native   SystemCallArchitectures=native: calls of any other ABI (x32,
 *                                          i386 on x86-64) kill the process. Required: the filters are
 *                                          made for the native ABI only (systemd makes one per ABI when
 *                                          the unit allows several; that is not imitated).
 *     --restrict-address-families=[~]AF_X,...  socket() with another family fails EAFNOSUPPORT.
 *     --memory-deny-write-execute[=seccomp]    prctl(PR_SET_MDWE) when the kernel has it (newer systemd),
 *                                          else (or with =seccomp) systemd's seccomp rules: mmap() with
 *                                          PROT_WRITE|PROT_EXEC, mprotect()/pkey_mprotect() with
 *                                          PROT_EXEC, shmat() with SHM_EXEC fail EPERM.
 *     --restrict-namespaces                RestrictNamespaces=yes: unshare()/clone() with a namespace flag
 *                                          and every setns() fail EPERM, clone3() ENOSYS (libc falls back
 *                                          to clone()).
 *     --restrict-realtime                  sched_setscheduler() to any policy but OTHER, BATCH, IDLE
 *                                          fails EPERM.
 *     --lock-personality                   personality() to anything but the current one fails EPERM.
 *
 * Exit status: COMMAND's (it replaces this process); 2 for a bad option, naming it; 1 when a filter
 * cannot be made or loaded; 127 when COMMAND cannot be executed. */

#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <unistd.h>

#include <seccomp.h>

#include "macros.h"

#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#endif
#ifndef PR_MDWE_REFUSE_EXEC_GAIN
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define ERRNO_MAX          4095 /* what SECCOMP_RET_DATA can carry as an errno, as systemd bounds it */
#define KILL_PROCESS       (-1) /* SystemCallErrorNumber= unset or "kill" */
#define PERSONALITY_QUERY  0xffffffffUL
#define EXIT_BAD_OPTION    2
#define EXIT_CANNOT_EXEC   127
#define ADDRESS_FAMILY_MAX 64

typedef enum MdweMethod {
        MDWE_OFF,
        MDWE_PRCTL_ELSE_SECCOMP, /* newer systemd */
        MDWE_SECCOMP,            /* systemd 252, or a kernel without PR_SET_MDWE */
} MdweMethod;

typedef struct Sandbox {
        char *syscalls;       /* the names, comma separated; NULL: no SystemCallFilter= */
        char *known_syscalls; /* @known's names, comma separated, or NULL */
        bool syscalls_deny_list;
        int syscall_errno; /* or KILL_PROCESS */
        bool native_only;
        bool have_families;
        bool families_deny_list;
        bool families[ADDRESS_FAMILY_MAX];
        MdweMethod mdwe;
        bool restrict_namespaces;
        bool restrict_realtime;
        bool lock_personality;
} Sandbox;

static const struct {
        const char *name;
        int family;
} address_families[] = {
        {"AF_UNIX", AF_UNIX},
        {"AF_LOCAL", AF_LOCAL},
        {"AF_INET", AF_INET},
        {"AF_INET6", AF_INET6},
        {"AF_NETLINK", AF_NETLINK},
        {"AF_PACKET", AF_PACKET},
        {"AF_BLUETOOTH", AF_BLUETOOTH},
        {"AF_CAN", AF_CAN},
        {"AF_ALG", AF_ALG},
        {"AF_VSOCK", AF_VSOCK},
        {"AF_KEY", AF_KEY},
        {"AF_BRIDGE", AF_BRIDGE},
        {"AF_APPLETALK", AF_APPLETALK},
        {"AF_X25", AF_X25},
        {"AF_AX25", AF_AX25},
        {"AF_TIPC", AF_TIPC},
        {"AF_RDS", AF_RDS},
        {"AF_LLC", AF_LLC},
        {"AF_NFC", AF_NFC},
        {"AF_QIPCRTR", AF_QIPCRTR},
        {"AF_XDP", AF_XDP},
};

/* The namespace flags RestrictNamespaces=yes refuses (systemd's namespace_info[]). */
static const unsigned long namespace_flags[] = {
        CLONE_NEWCGROUP, CLONE_NEWIPC,  CLONE_NEWNET, CLONE_NEWNS,
        CLONE_NEWPID,    CLONE_NEWUSER, CLONE_NEWUTS, CLONE_NEWTIME,
};

/* The policies RestrictRealtime=yes leaves (systemd's seccomp_restrict_realtime()); its rules refuse every
 * other value up to the highest of them, and every value above it (SCHED_RESET_ON_FORK included). */
static const int realtime_permitted[] = {SCHED_OTHER, SCHED_BATCH, SCHED_IDLE};
#define REALTIME_PERMITTED_MAX SCHED_IDLE

DEFINE_TRIVIAL_CLEANUP_FUNC(scmp_filter_ctx, seccomp_release);
#define _cleanup_scmp_ _cleanup_(seccomp_releasep)

static void report(const char *what, int r)
{
        fprintf(stderr, "unit-sandbox-exec: %s: %s\n", what, strerror(-r));
}

/* ERRNO is a name (EPERM), a number 1..4095, or "kill"; 0 or -EINVAL. */
static int parse_errno(const char *text, int *ret)
{
        char *end;
        long n;

        if (strcmp(text, "kill") == 0) {
                *ret = KILL_PROCESS;
                return 0;
        }
        errno = 0;
        n = strtol(text, &end, 10);
        if (errno == 0 && end != text && *end == '\0') {
                if (n < 1 || n > ERRNO_MAX)
                        return -EINVAL;
                *ret = (int) n;
                return 0;
        }
        for (int e = 1; e <= ERRNO_MAX; e++) {
                const char *name = strerrorname_np(e);

                if (name && strcmp(name, text) == 0) {
                        *ret = e;
                        return 0;
                }
        }
        return -EINVAL;
}

/* "[~]AF_A,AF_B" into s->families; 0 or -EINVAL (printing the unknown family). */
static int parse_address_families(const char *text, Sandbox *s)
{
        _cleanup_free_ char *copy = NULL;
        char *save = NULL;

        s->have_families = true;
        s->families_deny_list = text[0] == '~';
        copy = strdup(text + s->families_deny_list);
        if (!copy)
                return -ENOMEM;
        for (char *name = strtok_r(copy, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
                bool known = false;

                for (size_t i = 0; i < ELEMENTSOF(address_families); i++)
                        if (strcmp(address_families[i].name, name) == 0) {
                                s->families[address_families[i].family] = true;
                                known = true;
                        }
                if (!known) {
                        fprintf(stderr, "unit-sandbox-exec: unknown address family '%s'\n", name);
                        return -EINVAL;
                }
        }
        return 0;
}

/* A filter with DEFAULT_ACTION for the ABIs the sandbox covers; calls of other ABIs pass it (systemd's
 * seccomp_init_for_arch(): the SystemCallArchitectures= filter is the one that refuses them). */
static int filter_new(const Sandbox *s, uint32_t default_action, scmp_filter_ctx *ret)
{
        _cleanup_scmp_ scmp_filter_ctx ctx = NULL;
        int r;

        ctx = seccomp_init(default_action);
        if (!ctx)
                return -ENOMEM;
        r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(ctx);
        return 0;
}

static int filter_load(scmp_filter_ctx ctx, const char *what)
{
        int r = seccomp_load(ctx);

        if (r < 0)
                report(what, r);
        return r;
}

/* RestrictAddressFamilies= (systemd's seccomp_restrict_address_families()): rules on socket()'s first
 * argument. socketpair() and the families of sockets passed in are not affected, as with systemd. */
static int apply_address_families(const Sandbox *s)
{
        _cleanup_scmp_ scmp_filter_ctx ctx = NULL;
        uint32_t refuse = SCMP_ACT_ERRNO(EAFNOSUPPORT);
        int first = -1, last = -1, r;

        if (!s->have_families)
                return 0;
        r = filter_new(s, SCMP_ACT_ALLOW, &ctx);
        if (r < 0)
                return r;
        for (int af = 0; af < ADDRESS_FAMILY_MAX; af++) {
                if (!s->families[af])
                        continue;
                if (first < 0)
                        first = af;
                last = af;
                if (s->families_deny_list) {
                        r = seccomp_rule_add_exact(ctx, refuse, SCMP_SYS(socket), 1,
                                                   SCMP_A0(SCMP_CMP_EQ, af));
                        if (r < 0)
                                return r;
                }
        }
        if (!s->families_deny_list) {
                if (first < 0) /* an empty allow list: no socket() at all */
                        r = seccomp_rule_add_exact(ctx, refuse, SCMP_SYS(socket), 0);
                else
                        r = seccomp_rule_add_exact(ctx, refuse, SCMP_SYS(socket), 1,
                                                   SCMP_A0(SCMP_CMP_LT, first));
                if (r < 0)
                        return r;
                if (first >= 0) {
                        r = seccomp_rule_add_exact(ctx, refuse, SCMP_SYS(socket), 1,
                                                   SCMP_A0(SCMP_CMP_GT, last));
                        if (r < 0)
                                return r;
                        for (int af = first + 1; af < last; af++)
                                if (!s->families[af]) {
                                        r = seccomp_rule_add_exact(ctx, refuse, SCMP_SYS(socket), 1,
                                                                   SCMP_A0(SCMP_CMP_EQ, af));
                                        if (r < 0)
                                                return r;
                                }
                }
        }
        return filter_load(ctx, "RestrictAddressFamilies=");
}

/* MemoryDenyWriteExecute=: the prctl, or systemd's seccomp_memory_deny_write_execute(). */
static int apply_memory_deny_write_execute(const Sandbox *s)
{
        _cleanup_scmp_ scmp_filter_ctx ctx = NULL;
        uint32_t refuse = SCMP_ACT_ERRNO(EPERM);
        int r;

        if (s->mdwe == MDWE_OFF)
                return 0;
        if (s->mdwe == MDWE_PRCTL_ELSE_SECCOMP) {
                if (prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0L, 0L, 0L) == 0)
                        return 0;
                if (errno != EINVAL) { /* EINVAL: the kernel has no MDWE; anything else is a failure */
                        report("prctl(PR_SET_MDWE)", -errno);
                        return -errno;
                }
        }
        r = filter_new(s, SCMP_ACT_ALLOW, &ctx);
        if (r < 0)
                return r;
        r = seccomp_rule_add_exact(
                ctx, refuse, SCMP_SYS(mmap), 1,
                SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC | PROT_WRITE, PROT_EXEC | PROT_WRITE));
        if (r < 0)
                return r;
        r = seccomp_rule_add_exact(ctx, refuse, SCMP_SYS(mprotect), 1,
                                   SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
        if (r < 0)
                return r;
        r = seccomp_rule_add_exact(ctx, refuse, SCMP_SYS(pkey_mprotect), 1,
                                   SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
        if (r < 0)
                return r;
        r = seccomp_rule_add_exact(ctx, refuse, SCMP_SYS(shmat), 1,
                                   SCMP_A2(SCMP_CMP_MASKED_EQ, SHM_EXEC, SHM_EXEC));
        if (r < 0)
                return r;
        return filter_load(ctx, "MemoryDenyWriteExecute=");
}

/* RestrictRealtime=yes (systemd's seccomp_restrict_realtime()). */
static int apply_restrict_realtime(const Sandbox *s)
{
        _cleanup_scmp_ scmp_filter_ctx ctx = NULL;
        int r;

        if (!s->restrict_realtime)
                return 0;
        r = filter_new(s, SCMP_ACT_ALLOW, &ctx);
        if (r < 0)
                return r;
        for (int policy = 0; policy < REALTIME_PERMITTED_MAX; policy++) {
                bool permitted = false;

                for (size_t i = 0; i < ELEMENTSOF(realtime_permitted); i++)
                        permitted = permitted || realtime_permitted[i] == policy;
                if (permitted)
                        continue;
                r = seccomp_rule_add_exact(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(sched_setscheduler), 1,
                                           SCMP_A1(SCMP_CMP_EQ, policy));
                if (r < 0)
                        return r;
        }
        r = seccomp_rule_add_exact(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(sched_setscheduler), 1,
                                   SCMP_A1(SCMP_CMP_GT, REALTIME_PERMITTED_MAX));
        if (r < 0)
                return r;
        return filter_load(ctx, "RestrictRealtime=");
}

/* RestrictNamespaces=yes (systemd's seccomp_restrict_namespaces() retaining none). */
static int apply_restrict_namespaces(const Sandbox *s)
{
        _cleanup_scmp_ scmp_filter_ctx ctx = NULL;
        int r;

        if (!s->restrict_namespaces)
                return 0;
        r = filter_new(s, SCMP_ACT_ALLOW, &ctx);
        if (r < 0)
                return r;
        r = seccomp_rule_add_exact(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
        if (r < 0)
                return r;
        r = seccomp_rule_add_exact(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 0);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(namespace_flags); i++) {
                unsigned long f = namespace_flags[i];

                r = seccomp_rule_add_exact(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
                                           SCMP_A0(SCMP_CMP_MASKED_EQ, f, f));
                if (r < 0)
                        return r;
                r = seccomp_rule_add_exact(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                           SCMP_A0(SCMP_CMP_MASKED_EQ, f, f));
                if (r < 0)
                        return r;
        }
        return filter_load(ctx, "RestrictNamespaces=");
}

/* SystemCallArchitectures=native (systemd's seccomp_restrict_archs()): no rules, only the ABI check; the
 * other filters are for the native ABI only and let other ABIs' calls pass to this one. */
static int apply_architectures(const Sandbox *s)
{
        _cleanup_scmp_ scmp_filter_ctx ctx = NULL;
        int r;

        ctx = seccomp_init(SCMP_ACT_ALLOW);
        if (!ctx)
                return -ENOMEM;
        r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
        if (r < 0)
                return r;
        return filter_load(ctx, "SystemCallArchitectures=");
}

/* LockPersonality=yes (systemd's seccomp_lock_personality() with the current personality). */
static int apply_lock_personality(const Sandbox *s)
{
        _cleanup_scmp_ scmp_filter_ctx ctx = NULL;
        int current, r;

        if (!s->lock_personality)
                return 0;
        current = personality(PERSONALITY_QUERY);
        if (current < 0)
                return -errno;
        r = filter_new(s, SCMP_ACT_ALLOW, &ctx);
        if (r < 0)
                return r;
        r = seccomp_rule_add_exact(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), 1,
                                   SCMP_A0(SCMP_CMP_NE, (unsigned long) current));
        if (r < 0)
                return r;
        return filter_load(ctx, "LockPersonality=");
}

/* The numbers of the comma-separated NAMES on the native ABI, in *ret (n in *ret_n). Names libseccomp does
 * not know are skipped, listed on stderr as WHAT; a name of another ABI only resolves to libseccomp's
 * negative pseudo number (kept: seccomp_rule_add() ignores it). 0 or -ENOMEM. */
static int resolve_syscalls(const char *names, const char *what, int **ret, size_t *ret_n)
{
        _cleanup_free_ char *copy = strdup(names);
        _cleanup_free_ int *nrs = NULL;
        char *save = NULL;
        size_t n = 0, skipped = 0;

        if (!copy)
                return -ENOMEM;
        nrs = calloc(strlen(names) / 2 + 1, sizeof(int)); /* a name and a comma: 2 characters at least */
        if (!nrs)
                return -ENOMEM;
        for (char *name = strtok_r(copy, ", \n", &save); name; name = strtok_r(NULL, ", \n", &save)) {
                int nr = seccomp_syscall_resolve_name(name);

                if (nr == __NR_SCMP_ERROR)
                        fprintf(stderr, "%s%s", skipped++ ? " " : what, name);
                else
                        nrs[n++] = nr;
        }
        if (skipped)
                fputc('\n', stderr);
        *ret = TAKE_PTR(nrs);
        *ret_n = n;
        return 0;
}

static bool contains(const int *nrs, size_t n, int nr)
{
        for (size_t i = 0; i < n; i++)
                if (nrs[i] == nr)
                        return true;
        return false;
}

/* SystemCallFilter= with SystemCallErrorNumber= (systemd's seccomp_load_syscall_filter_set_raw()): a deny
 * list refuses its names. An allow list lets its names through and refuses every other call systemd
 * knows (@known, from --known-system-calls); calls it does not know, newer than it, fail ENOSYS (systemd
 * >= 247), so that programs take their fallback. Refusing is the errno, or killing the process. */
static int apply_syscall_filter(const Sandbox *s)
{
        _cleanup_scmp_ scmp_filter_ctx ctx = NULL;
        _cleanup_free_ int *listed_nrs = NULL, *known_nrs = NULL;
        size_t n_listed = 0, n_known = 0;
        uint32_t refuse, listed, unlisted;
        int r;

        if (!s->syscalls)
                return 0;
        refuse = s->syscall_errno == KILL_PROCESS ? SCMP_ACT_KILL_PROCESS : SCMP_ACT_ERRNO(s->syscall_errno);
        listed = s->syscalls_deny_list ? refuse : SCMP_ACT_ALLOW;
        unlisted = s->syscalls_deny_list ? SCMP_ACT_ALLOW
                   : s->known_syscalls   ? SCMP_ACT_ERRNO(ENOSYS)
                                         : refuse;
        r = resolve_syscalls(s->syscalls,
                             "unit-sandbox-exec: SystemCallFilter=: unknown to libseccomp, skipped: ",
                             &listed_nrs, &n_listed);
        if (r < 0)
                return r;
        if (!s->syscalls_deny_list && s->known_syscalls) {
                r = resolve_syscalls(
                        s->known_syscalls,
                        "unit-sandbox-exec: @known: unknown to libseccomp, skipped: ", &known_nrs, &n_known);
                if (r < 0)
                        return r;
        }
        r = filter_new(s, unlisted, &ctx);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n_listed; i++) {
                r = seccomp_rule_add(ctx, listed, listed_nrs[i], 0);
                if (r < 0 && r != -EEXIST) {
                        report(seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, listed_nrs[i])
                                       ?: "a system call",
                               r);
                        return r;
                }
        }
        for (size_t i = 0; i < n_known; i++) {
                if (contains(listed_nrs, n_listed, known_nrs[i]))
                        continue;
                r = seccomp_rule_add(ctx, refuse, known_nrs[i], 0);
                if (r < 0 && r != -EEXIST) {
                        report("a system call of @known", r);
                        return r;
                }
        }
        return filter_load(ctx, "SystemCallFilter=");
}

/* In the order of systemd's exec_child(): the system call filter last, closest to execve(). */
static int apply_sandbox(const Sandbox *s)
{
        int (*const steps[])(const Sandbox *) = {
                apply_address_families,  apply_memory_deny_write_execute,
                apply_restrict_realtime, apply_restrict_namespaces,
                apply_architectures,     apply_lock_personality,
                apply_syscall_filter,
        };

        for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
                int r = steps[i](s);

                if (r < 0)
                        return r;
        }
        return 0;
}

static void usage(void)
{
        fprintf(stderr,
                "usage: unit-sandbox-exec [--system-call-filter=[~]NAMES] [--known-system-calls=NAMES]\n"
                "         [--system-call-error-number=ERRNO]\n"
                "         [--system-call-architectures=native] [--restrict-address-families=[~]AF_X,...]\n"
                "         [--memory-deny-write-execute[=seccomp]] [--restrict-namespaces]\n"
                "         [--restrict-realtime] [--lock-personality] COMMAND [ARG...]\n");
}

enum {
        ARG_SYSCALL_FILTER = 0x100,
        ARG_SYSCALL_ERRNO,
        ARG_KNOWN_SYSCALLS,
        ARG_SYSCALL_ARCHS,
        ARG_ADDRESS_FAMILIES,
        ARG_MDWE,
        ARG_NAMESPACES,
        ARG_REALTIME,
        ARG_PERSONALITY,
};

static int parse_argv(int argc, char **argv, Sandbox *s)
{
        static const struct option options[] = {
                {"system-call-filter", required_argument, NULL, ARG_SYSCALL_FILTER},
                {"system-call-error-number", required_argument, NULL, ARG_SYSCALL_ERRNO},
                {"known-system-calls", required_argument, NULL, ARG_KNOWN_SYSCALLS},
                {"system-call-architectures", required_argument, NULL, ARG_SYSCALL_ARCHS},
                {"restrict-address-families", required_argument, NULL, ARG_ADDRESS_FAMILIES},
                {"memory-deny-write-execute", optional_argument, NULL, ARG_MDWE},
                {"restrict-namespaces", no_argument, NULL, ARG_NAMESPACES},
                {"restrict-realtime", no_argument, NULL, ARG_REALTIME},
                {"lock-personality", no_argument, NULL, ARG_PERSONALITY},
                {},
        };
        int c;

        while ((c = getopt_long(argc, argv, "+", options, NULL)) >= 0)
                switch (c) {
                case ARG_SYSCALL_FILTER:
                        s->syscalls_deny_list = optarg[0] == '~';
                        s->syscalls = optarg + s->syscalls_deny_list;
                        break;
                case ARG_KNOWN_SYSCALLS:
                        s->known_syscalls = optarg;
                        break;
                case ARG_SYSCALL_ERRNO:
                        if (parse_errno(optarg, &s->syscall_errno) < 0) {
                                fprintf(stderr, "unit-sandbox-exec: bad --system-call-error-number '%s'\n",
                                        optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_SYSCALL_ARCHS:
                        if (strcmp(optarg, "native") != 0) {
                                fprintf(stderr,
                                        "unit-sandbox-exec: --system-call-architectures '%s': only "
                                        "'native' is imitated\n",
                                        optarg);
                                return -EINVAL;
                        }
                        s->native_only = true;
                        break;
                case ARG_ADDRESS_FAMILIES:
                        if (parse_address_families(optarg, s) < 0)
                                return -EINVAL;
                        break;
                case ARG_MDWE:
                        if (optarg && strcmp(optarg, "seccomp") != 0) {
                                fprintf(stderr, "unit-sandbox-exec: bad --memory-deny-write-execute '%s'\n",
                                        optarg);
                                return -EINVAL;
                        }
                        s->mdwe = optarg ? MDWE_SECCOMP : MDWE_PRCTL_ELSE_SECCOMP;
                        break;
                case ARG_NAMESPACES:
                        s->restrict_namespaces = true;
                        break;
                case ARG_REALTIME:
                        s->restrict_realtime = true;
                        break;
                case ARG_PERSONALITY:
                        s->lock_personality = true;
                        break;
                default:
                        usage();
                        return -EINVAL;
                }
        if (!s->native_only) {
                fprintf(stderr, "unit-sandbox-exec: only SystemCallArchitectures=native is imitated: "
                                "--system-call-architectures=native is required\n");
                return -EINVAL;
        }
        if (optind >= argc) {
                fprintf(stderr, "unit-sandbox-exec: no COMMAND\n");
                usage();
                return -EINVAL;
        }
        return optind;
}

int main(int argc, char **argv)
{
        Sandbox s = {.syscall_errno = KILL_PROCESS};
        int command, r;

        command = parse_argv(argc, argv, &s);
        if (command < 0)
                return EXIT_BAD_OPTION;
        r = apply_sandbox(&s);
        if (r < 0) {
                report("cannot apply the sandbox", r);
                return EXIT_FAILURE;
        }
        execvp(argv[command], argv + command);
        fprintf(stderr, "unit-sandbox-exec: cannot execute %s: %m\n", argv[command]);
        return EXIT_CANNOT_EXEC;
}
