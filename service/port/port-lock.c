/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The machine-wide EC lock (port-lock.h). */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "port-lock.h"
#include "strutil.h"

#define PORT_LOCK_DIR_MODE 0755
/* 0600: nobody but the owner (root or tpaccel) can open the file, so nobody else can flock(2) it and block
 * every later start. */
#define PORT_LOCK_FILE_MODE 0600
#define PID_TEXT_MAX        32
#define COMM_MAX            64
#define PROC_LOCKS          "/proc/locks"
#define PROC_LOCKS_LINE_MAX 256

struct PortLock {
        char *path;
        bool create_dir;
        int fd; /* >= 0 while held */
        bool refused;
        char *created_dir;
};

int port_lock_new(const char *path, bool create_dir, PortLock **ret)
{
        PortLock *l = calloc(1, sizeof(*l));

        if (!l)
                return -ENOMEM;
        l->path = strdup(path);
        if (!l->path) {
                free(l);
                return -ENOMEM;
        }
        l->create_dir = create_dir;
        l->fd = -EBADF;
        *ret = l;
        return 0;
}

PortLock *port_lock_free(PortLock *l)
{
        if (!l)
                return NULL;
        closep(&l->fd);
        free(l->created_dir);
        free(l->path);
        free(l);
        return NULL;
}

bool port_lock_held(const PortLock *l)
{
        return l->fd >= 0;
}

bool port_lock_refused(const PortLock *l)
{
        return l->refused;
}

const char *port_lock_path(const PortLock *l)
{
        return l->path;
}

const char *port_lock_created_dir(const PortLock *l)
{
        return l->created_dir;
}

pid_t port_lock_find_holder(FILE *proc_locks, dev_t dev, ino_t ino)
{
        char line[PROC_LOCKS_LINE_MAX];

        assert(proc_locks);
        /* "1: FLOCK  ADVISORY  WRITE 29882 fe:00:10955652 0 EOF"; a waiter's line has "->" after the
         * number. The device is MAJOR:MINOR in hex, as the kernel prints it. */
        while (fgets(line, sizeof(line), proc_locks)) {
                char kind[16], mode[16], access[16];
                unsigned maj, min;
                unsigned long long inode;
                int pid;

                if (strstr(line, "->"))
                        continue;
                if (sscanf(line, "%*d: %15s %15s %15s %d %x:%x:%llu", kind, mode, access, &pid, &maj, &min,
                           &inode) != 7)
                        continue;
                if (pid > 0 && maj == major(dev) && min == minor(dev) && inode == (unsigned long long) ino)
                        return (pid_t) pid;
        }
        return 0;
}

/* "PID 1234 (tpacceld)" or "PID 1234" from the kernel's list of locks held on the file fd is open on (or
 * path names), never from what the file says: its contents may be stale or anyone's. NULL: not found. */
static char *describe_holder(int fd, const char *path)
{
        char comm[COMM_MAX] = {}, comm_path[64];
        _cleanup_fclose_ FILE *locks = NULL;
        struct stat st;
        pid_t pid;
        FILE *f;

        if ((fd >= 0 ? fstat(fd, &st) : stat(path, &st)) < 0)
                return NULL;
        locks = fopen(PROC_LOCKS, "re");
        if (!locks)
                return NULL;
        pid = port_lock_find_holder(locks, st.st_dev, st.st_ino);
        if (pid == 0)
                return NULL;
        snprintf(comm_path, sizeof(comm_path), "/proc/%d/comm", (int) pid);
        f = fopen(comm_path, "re");
        if (f) {
                if (fgets(comm, sizeof(comm), f))
                        comm[strcspn(comm, "\n")] = '\0';
                fclose(f);
        }
        if (comm[0]) {
                char excerpt[STR_EXCERPT_SIZE]; /* any process can name itself anything */
                return strprintf("PID %d (%s)", (int) pid, str_excerpt(comm, excerpt));
        }
        return strprintf("PID %d", (int) pid);
}

/* mkdir -p of path's directory, each new level with mode 0755 whatever the umask. Remembers the
 * deepest directory it created. */
static int create_parent_dirs(PortLock *l)
{
        _cleanup_free_ char *dir = strdup(l->path);
        char *slash;

        if (!dir)
                return -ENOMEM;
        slash = strrchr(dir, '/');
        if (!slash || slash == dir)
                return 0;
        *slash = '\0';

        for (char *p = dir + 1;; p++) {
                bool last = *p == '\0';
                if (*p != '/' && !last)
                        continue;
                *p = '\0';
                if (mkdir(dir, PORT_LOCK_DIR_MODE) == 0) {
                        if (chmod(dir, PORT_LOCK_DIR_MODE) < 0)
                                return -errno;
                        free(l->created_dir);
                        l->created_dir = strdup(dir);
                        if (!l->created_dir)
                                return -ENOMEM;
                } else if (errno != EEXIST)
                        return -errno;
                if (last)
                        return 0;
                *p = '/';
        }
}

static int refuse(PortLock *l, char *holder, char **ret_error)
{
        _cleanup_free_ char *h = holder;

        l->refused = true;
        return error_printf(ret_error, -EBUSY,
                            "the EC is in use: %s holds the lock %s, and only one program may drive the "
                            "EC ports at a time",
                            h ?: "another process (not visible in " PROC_LOCKS ")", l->path);
}

/* We may not open the file (mode 0600, another user's): if the kernel lists a lock on it, say who holds
 * it. */
static int check_holder_readonly(PortLock *l, int open_error, char **ret_error)
{
        char *holder = describe_holder(-EBADF, l->path);

        if (holder)
                return refuse(l, holder, ret_error);
        return error_printf(ret_error, open_error, "cannot open the EC lock file %s for writing: %s",
                            l->path, strerror(-open_error));
}

int port_lock_take(PortLock *l, char **ret_error)
{
        _cleanup_close_ int fd = -EBADF;
        char pid_text[PID_TEXT_MAX];
        struct stat st;
        int r, n;

        if (l->fd >= 0)
                return 0;
        l->refused = false;

        if (l->create_dir) {
                r = create_parent_dirs(l);
                if (r < 0)
                        return error_printf(ret_error, r,
                                            "cannot create the directory of the EC lock file %s: %s",
                                            l->path, strerror(-r));
        }

        fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, PORT_LOCK_FILE_MODE);
        if (fd < 0) {
                r = -errno;
                if (r == -EACCES || r == -EPERM || r == -EROFS)
                        return check_holder_readonly(l, r, ret_error);
                if (r == -ELOOP)
                        return error_printf(ret_error, r, "the EC lock file %s is a symbolic link: refused",
                                            l->path);
                return error_printf(ret_error, r, "cannot open the EC lock file %s: %s", l->path,
                                    strerror(-r));
        }
        /* Root may run this in a directory another user owns: never truncate anything but a plain file. */
        if (fstat(fd, &st) < 0) {
                r = -errno;
                return error_printf(ret_error, r, "cannot check the EC lock file %s: %s", l->path,
                                    strerror(-r));
        }
        if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
                return error_printf(ret_error, -EPERM,
                                    "the EC lock file %s is not a plain file with a single link: refused",
                                    l->path);

        /* 0600 before anything else, an older 0644 file included, also when someone holds it now: from
         * here on no other user can open it to lock it. */
        if ((st.st_mode & 07777) != PORT_LOCK_FILE_MODE && st.st_uid == geteuid())
                (void) fchmod(fd, PORT_LOCK_FILE_MODE);

        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                r = -errno;
                if (r == -EWOULDBLOCK)
                        return refuse(l, describe_holder(fd, NULL), ret_error);
                return error_printf(ret_error, r, "cannot lock the EC lock file %s: %s", l->path,
                                    strerror(-r));
        }

        /* Ours now: our PID in it for people who look; a refused process names the holder from
         * /proc/locks, never from the file. */
        n = snprintf(pid_text, sizeof(pid_text), "%d\n", (int) getpid());
        if (ftruncate(fd, 0) == 0)
                (void) !pwrite(fd, pid_text, (size_t) n, 0);

        l->fd = TAKE_FD(fd);
        return 0;
}
