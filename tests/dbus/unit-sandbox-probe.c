/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unit-sandbox-probe: makes one system call that a unit's sandbox refuses and prints what came back,
 * for test-real-polkitd.sh's negative controls of unit-sandbox-exec (run once inside it, once outside
 * to show the answer differs there). Prints "ok" when the call succeeded, else the errno's name
 * (EAFNOSUPPORT); a process the filter kills prints nothing and dies of SIGSYS.
 *
 *   unit-sandbox-probe socket-inet     socket(AF_INET, SOCK_STREAM)          (RestrictAddressFamilies=)
 *   unit-sandbox-probe mmap-wx         an anonymous PROT_WRITE|PROT_EXEC mmap (MemoryDenyWriteExecute=)
 *   unit-sandbox-probe setns-net       setns(-1, CLONE_NEWNET): EBADF unfiltered (RestrictNamespaces=)
 *   unit-sandbox-probe sched-fifo      sched_setscheduler(0, SCHED_FIFO, NULL): EINVAL unfiltered
 *                                      (RestrictRealtime=)
 *   unit-sandbox-probe personality     personality(PER_LINUX32)              (LockPersonality=)
 *   unit-sandbox-probe syscall NAME    the system call NAME with every argument 0 (SystemCallFilter=)
 * Exit status 0 when it printed an answer, 2 for a bad argument. */

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <seccomp.h>

#define EXIT_BAD_ARGUMENT 2
#define PROBE_MAP_SIZE    4096

/* The answer of a call that returned r (negative: failed with errno). */
static void print_answer(long r)
{
        const char *name;

        if (r >= 0) {
                puts("ok");
                return;
        }
        name = strerrorname_np(errno);
        if (name)
                puts(name);
        else
                printf("errno %d\n", errno);
}

static long probe_mmap_wx(void)
{
        void *p = mmap(NULL, PROBE_MAP_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);

        if (p == MAP_FAILED)
                return -1;
        munmap(p, PROBE_MAP_SIZE);
        return 0;
}

static long probe_socket_inet(void)
{
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd < 0)
                return -1;
        close(fd);
        return 0;
}

int main(int argc, char **argv)
{
        const char *what = argc > 1 ? argv[1] : "";

        if (strcmp(what, "socket-inet") == 0 && argc == 2)
                print_answer(probe_socket_inet());
        else if (strcmp(what, "mmap-wx") == 0 && argc == 2)
                print_answer(probe_mmap_wx());
        else if (strcmp(what, "setns-net") == 0 && argc == 2)
                print_answer(setns(-1, CLONE_NEWNET));
        else if (strcmp(what, "sched-fifo") == 0 && argc == 2)
                print_answer(sched_setscheduler(0, SCHED_FIFO, NULL));
        else if (strcmp(what, "personality") == 0 && argc == 2)
                print_answer(personality(PER_LINUX32));
        else if (strcmp(what, "syscall") == 0 && argc == 3) {
                int nr = seccomp_syscall_resolve_name(argv[2]);

                if (nr == __NR_SCMP_ERROR || nr < 0) {
                        fprintf(stderr, "unit-sandbox-probe: no system call '%s' on this architecture\n",
                                argv[2]);
                        return EXIT_BAD_ARGUMENT;
                }
                print_answer(syscall(nr, 0L, 0L, 0L, 0L, 0L, 0L));
        } else {
                fprintf(stderr,
                        "usage: unit-sandbox-probe socket-inet|mmap-wx|setns-net|sched-fifo|personality"
                        "|syscall NAME\n");
                return EXIT_BAD_ARGUMENT;
        }
        return fflush(stdout) == 0 ? 0 : 1;
}
