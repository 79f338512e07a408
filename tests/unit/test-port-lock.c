/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The machine-wide EC lock (service/port/port-lock.c): one holder at a time, whose PID the refused
 * process names; released by exit; the directory created 0755 whatever the umask; files that are not
 * plain are never truncated. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "port-lock.h"
#include "test-helpers.h"

static char tmpdir[] = "/tmp/test-port-lock.XXXXXX";

static void path_in_tmp(char *buf, size_t size, const char *rel)
{
        snprintf(buf, size, "%s/%s", tmpdir, rel);
}

static char *slurp(const char *path)
{
        static char buf[256];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return NULL;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        buf[n > 0 ? n : 0] = '\0';
        return buf;
}

static void check_contains(const char *s, const char *part)
{
        CHECK(s && strstr(s, part));
        if (s && !strstr(s, part))
                fprintf(stderr, "  \"%s\" lacks \"%s\"\n", s, part);
}

TEST(test_parse_pid)
{
        CHECK_EQ(port_lock_parse_pid("1234\n"), 1234);
        CHECK_EQ(port_lock_parse_pid("1234"), 1234);
        CHECK_EQ(port_lock_parse_pid(""), 0);
        CHECK_EQ(port_lock_parse_pid(NULL), 0);
        CHECK_EQ(port_lock_parse_pid("-5\n"), 0);
        CHECK_EQ(port_lock_parse_pid("0\n"), 0);
        CHECK_EQ(port_lock_parse_pid("12ab\n"), 0);
        CHECK_EQ(port_lock_parse_pid("99999999999\n"), 0);
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
        CHECK_STREQ(slurp(path), want);

        /* A second open file description is a second owner, even in this process. */
        CHECK_EQ(port_lock_take(b, &error), -EBUSY);
        CHECK(port_lock_refused(b));
        CHECK(!port_lock_held(b));
        snprintf(want, sizeof(want), "PID %d (test-port-lock)", (int) getpid());
        check_contains(error, want);
        check_contains(error, path);
        CHECK_STREQ(slurp(path), (snprintf(want, sizeof(want), "%d\n", (int) getpid()), want));
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
        CHECK_STREQ(slurp(path), want);
        port_lock_free(l);
}

TEST(test_empty_file_says_pid_not_recorded)
{
        char path[256];
        PortLock *l = NULL;
        char *error = NULL;
        int fd;

        path_in_tmp(path, sizeof(path), "empty.lock");
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        CHECK_EQ(flock(fd, LOCK_EX), 0); /* a holder that wrote nothing (yet) */
        CHECK_EQ(port_lock_new(path, false, &l), 0);
        CHECK_EQ(port_lock_take(l, &error), -EBUSY);
        check_contains(error, "PID is not recorded");
        free(error);
        close(fd);
        port_lock_free(l);
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
        CHECK_EQ(st.st_mode & 07777, 0644);
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
        CHECK_STREQ(slurp(target), "keep me\n");

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
        if (!mkdtemp(tmpdir)) {
                perror("mkdtemp");
                return 1;
        }
        RUN(test_parse_pid);
        RUN(test_one_holder_named_by_pid);
        RUN(test_released_when_the_holder_dies);
        RUN(test_empty_file_says_pid_not_recorded);
        RUN(test_creates_the_directory_0755);
        RUN(test_refuses_what_is_not_a_plain_file);

        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
        (void) system(cmd);
        return test_summary();
}
