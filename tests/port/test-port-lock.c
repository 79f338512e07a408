/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The machine-wide EC lock (service/port/port-lock.c): one holder at a time, whose PID the refused
 * process names from /proc/locks (never from the file); released by exit; the file 0600 and the
 * directory 0755 whatever the umask; files that are not plain are never truncated. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "port-lock.h"
#include "test-helpers.h"

static char tmpdir[] = "/tmp/test-port-lock.XXXXXX";

static void path_in_tmp(char *buf, size_t size, const char *rel)
{
        snprintf(buf, size, "%s/%s", tmpdir, rel);
}

static void check_contains(const char *s, const char *part)
{
        CHECK(s && strstr(s, part));
        if (s && !strstr(s, part))
                fprintf(stderr, "  \"%s\" lacks \"%s\"\n", s, part);
}

TEST(test_find_holder_in_proc_locks)
{
        const char *text = "1: POSIX  ADVISORY  WRITE 700 08:01:99 0 EOF\n"
                           "2: FLOCK  ADVISORY  WRITE 1234 fe:00:10955652 0 EOF\n"
                           "2: -> FLOCK  ADVISORY  WRITE 4321 fe:00:10955652 0 EOF\n"
                           "3: OFDLCK ADVISORY  READ  -1 00:1a:42 0 EOF\n"
                           "garbage\n";
        FILE *f;

        f = fmemopen((void *) text, strlen(text), "r");
        CHECK_EQ(port_lock_find_holder(f, makedev(0xfe, 0), 10955652), 1234);
        fclose(f);
        f = fmemopen((void *) text, strlen(text), "r");
        CHECK_EQ(port_lock_find_holder(f, makedev(8, 1), 99), 700);
        fclose(f);
        f = fmemopen((void *) text, strlen(text), "r");
        CHECK_EQ(port_lock_find_holder(f, makedev(0, 0x1a), 42), 0); /* no PID */
        fclose(f);
        f = fmemopen((void *) text, strlen(text), "r");
        CHECK_EQ(port_lock_find_holder(f, makedev(0xfe, 1), 10955652), 0); /* another device */
        fclose(f);
}

TEST(test_one_holder_named_by_pid)
{
        char path[256], want[64];
        PortLock *a = NULL, *b = NULL;
        char *error = NULL;

        path_in_tmp(path, sizeof(path), "ec.lock");
        CHECK_EQ(port_lock_new(path, false, &a), 0);
        CHECK_EQ(port_lock_new(path, false, &b), 0);
        CHECK(!port_lock_held(a));

        CHECK_EQ(port_lock_take(a, &error), 0);
        CHECK(port_lock_held(a));
        CHECK_EQ(port_lock_take(a, &error), 0); /* again: still ours */
        snprintf(want, sizeof(want), "%d\n", (int) getpid());
        CHECK_STREQ(test_read_text(path), want);

        /* A second open file description is a second owner, even in this process. */
        CHECK_EQ(port_lock_take(b, &error), -EBUSY);
        CHECK(port_lock_refused(b));
        CHECK(!port_lock_held(b));
        snprintf(want, sizeof(want), "PID %d (test-port-lock)", (int) getpid());
        check_contains(error, want);
        check_contains(error, path);
        CHECK_STREQ(test_read_text(path), (snprintf(want, sizeof(want), "%d\n", (int) getpid()), want));
        free(error);
        error = NULL;

        /* Released with the object: the other takes it. */
        a = port_lock_free(a);
        CHECK_EQ(port_lock_take(b, &error), 0);
        CHECK(!port_lock_refused(b));
        port_lock_free(b);
}

TEST(test_released_when_the_holder_dies)
{
        char path[256], want[64];
        int ready[2];
        PortLock *l = NULL;
        char *error = NULL;
        pid_t child;
        char c;

        path_in_tmp(path, sizeof(path), "child.lock");
        CHECK_EQ(pipe(ready), 0);
        child = fork();
        if (child == 0) {
                PortLock *mine = NULL;
                if (port_lock_new(path, false, &mine) < 0 || port_lock_take(mine, NULL) < 0)
                        _exit(1);
                (void) !write(ready[1], "x", 1);
                pause(); /* until killed */
                _exit(0);
        }
        close(ready[1]);
        CHECK_EQ(read(ready[0], &c, 1), 1);
        close(ready[0]);

        CHECK_EQ(port_lock_new(path, false, &l), 0);
        CHECK_EQ(port_lock_take(l, &error), -EBUSY);
        snprintf(want, sizeof(want), "PID %d", (int) child);
        check_contains(error, want);
        free(error);
        error = NULL;

        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        CHECK_EQ(port_lock_take(l, &error), 0); /* the kernel dropped the dead holder's lock */
        snprintf(want, sizeof(want), "%d\n", (int) getpid());
        CHECK_STREQ(test_read_text(path), want);
        port_lock_free(l);
}

TEST(test_holder_named_from_the_kernel_not_the_file)
{
        char path[256], want[64];
        PortLock *l = NULL;
        char *error = NULL;
        int fd;

        /* A holder that wrote nothing (yet), and one whose file names PID 1: the kernel's list says who. */
        path_in_tmp(path, sizeof(path), "empty.lock");
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        CHECK_EQ(flock(fd, LOCK_EX), 0);
        CHECK_EQ(port_lock_new(path, false, &l), 0);
        CHECK_EQ(port_lock_take(l, &error), -EBUSY);
        snprintf(want, sizeof(want), "PID %d (test-port-lock) holds", (int) getpid());
        check_contains(error, want);
        free(error);
        error = NULL;
        CHECK_EQ(write(fd, "1\n", 2), 2);
        CHECK_EQ(port_lock_take(l, &error), -EBUSY);
        check_contains(error, want);
        CHECK(error && !strstr(error, "PID 1 "));
        free(error);
        close(fd);
        port_lock_free(l);
}

TEST(test_file_is_0600_so_others_cannot_lock_it)
{
        char path[256];
        PortLock *l = NULL;
        struct stat st;
        int fd;

        /* New: 0600 whatever the umask. */
        path_in_tmp(path, sizeof(path), "mode.lock");
        CHECK_EQ(port_lock_new(path, false, &l), 0);
        CHECK_EQ(port_lock_take(l, NULL), 0);
        CHECK_EQ(stat(path, &st), 0);
        CHECK_EQ(st.st_mode & 07777, 0600);
        port_lock_free(l);

        /* Left 0644 by an older version: made 0600 by the next holder. */
        path_in_tmp(path, sizeof(path), "old.lock");
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        CHECK_EQ(fchmod(fd, 0644), 0);
        close(fd);
        CHECK_EQ(port_lock_new(path, false, &l), 0);
        CHECK_EQ(port_lock_take(l, NULL), 0);
        CHECK_EQ(stat(path, &st), 0);
        CHECK_EQ(st.st_mode & 07777, 0600);
        port_lock_free(l);

        /* Left 0644 and held by someone now: made 0600 by the refused taker, so nobody else gets in. */
        path_in_tmp(path, sizeof(path), "held-old.lock");
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        CHECK_EQ(fchmod(fd, 0644), 0);
        CHECK_EQ(flock(fd, LOCK_SH), 0);
        CHECK_EQ(port_lock_new(path, false, &l), 0);
        CHECK_EQ(port_lock_take(l, NULL), -EBUSY);
        CHECK_EQ(stat(path, &st), 0);
        CHECK_EQ(st.st_mode & 07777, 0600);
        port_lock_free(l);
        close(fd);

        /* Another user (nobody) cannot open it, so cannot hold a lock on it. */
        if (geteuid() == 0) {
                CHECK_EQ(chmod(tmpdir, 0755), 0); /* only the file's mode keeps nobody out */
                pid_t child = fork();
                int status = 0;
                if (child == 0) {
                        if (setgid(65534) < 0 || setuid(65534) < 0)
                                _exit(2);
                        fd = open(path, O_RDONLY | O_CLOEXEC);
                        _exit(fd < 0 && errno == EACCES ? 0 : 1);
                }
                CHECK(child > 0);
                CHECK_EQ(waitpid(child, &status, 0), child);
                CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
                CHECK_EQ(chmod(tmpdir, 0700), 0);
        }
}

TEST(test_creates_the_directory_0755)
{
        char path[256], dir[256];
        PortLock *l = NULL;
        struct stat st;
        mode_t old = umask(0077); /* the unit's UMask= */

        path_in_tmp(dir, sizeof(dir), "run/tpaccel");
        path_in_tmp(path, sizeof(path), "run/tpaccel/ec.lock");
        CHECK_EQ(port_lock_new(path, true, &l), 0);
        CHECK_EQ(port_lock_take(l, NULL), 0);
        CHECK_STREQ(port_lock_created_dir(l), dir);
        CHECK_EQ(stat(dir, &st), 0);
        CHECK_EQ(st.st_mode & 07777, 0755);
        CHECK_EQ(stat(path, &st), 0);
        CHECK_EQ(st.st_mode & 07777, 0600);
        port_lock_free(l);

        /* Existing directory: nothing created. */
        CHECK_EQ(port_lock_new(path, true, &l), 0);
        CHECK_EQ(port_lock_take(l, NULL), 0);
        CHECK(port_lock_created_dir(l) == NULL);
        port_lock_free(l);

        /* An explicit path's directory must exist. */
        char *error = NULL;
        path_in_tmp(path, sizeof(path), "missing/ec.lock");
        CHECK_EQ(port_lock_new(path, false, &l), 0);
        CHECK_EQ(port_lock_take(l, &error), -ENOENT);
        check_contains(error, path);
        free(error);
        port_lock_free(l);
        umask(old);
}

TEST(test_refuses_what_is_not_a_plain_file)
{
        char path[256], target[256];
        PortLock *l = NULL;
        char *error = NULL;

        /* A symlink is not followed. */
        path_in_tmp(target, sizeof(target), "precious");
        path_in_tmp(path, sizeof(path), "link.lock");
        int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        CHECK_EQ(write(fd, "keep me\n", 8), 8);
        close(fd);
        CHECK_EQ(symlink(target, path), 0);
        CHECK_EQ(port_lock_new(path, false, &l), 0);
        CHECK_EQ(port_lock_take(l, &error), -ELOOP);
        check_contains(error, "symbolic link");
        free(error);
        error = NULL;
        port_lock_free(l);

        /* A hard link to another file is not truncated. */
        path_in_tmp(path, sizeof(path), "hardlink.lock");
        CHECK_EQ(link(target, path), 0);
        CHECK_EQ(port_lock_new(path, false, &l), 0);
        CHECK_EQ(port_lock_take(l, &error), -EPERM);
        check_contains(error, "not a plain file with a single link");
        free(error);
        error = NULL;
        port_lock_free(l);
        CHECK_STREQ(test_read_text(target), "keep me\n");

        /* A directory. */
        path_in_tmp(path, sizeof(path), "dir.lock");
        CHECK_EQ(mkdir(path, 0755), 0);
        CHECK_EQ(port_lock_new(path, false, &l), 0);
        CHECK(port_lock_take(l, &error) < 0);
        check_contains(error, path);
        free(error);
        port_lock_free(l);
}

int main(void)
{
        test_scratch_make(tmpdir);
        RUN(test_find_holder_in_proc_locks);
        RUN(test_one_holder_named_by_pid);
        RUN(test_released_when_the_holder_dies);
        RUN(test_holder_named_from_the_kernel_not_the_file);
        RUN(test_file_is_0600_so_others_cannot_lock_it);
        RUN(test_creates_the_directory_0755);
        RUN(test_refuses_what_is_not_a_plain_file);

        test_scratch_remove(tmpdir);
        return test_summary();
}
