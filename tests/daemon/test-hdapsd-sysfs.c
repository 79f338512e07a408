/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hdapsd's stand-in (service/daemon/hdapsd-sysfs.c): the tree is made and updated; a symlink anywhere on
 * the way is refused, never followed; a FIFO at a temporary file's name does not block the writer. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hdapsd-sysfs.h"
#include "test-helpers.h"

static char tmpdir[] = "/tmp/test-hdapsd-sysfs.XXXXXX";

static char *slurp(const char *dir, const char *rel)
{
        static char buf[256];
        char path[512];
        int fd;
        ssize_t n;

        snprintf(path, sizeof(path), "%s/%s", dir, rel);
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
                return NULL;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        buf[n > 0 ? n : 0] = '\0';
        return buf;
}

static void sub(char *buf, size_t size, const char *rel)
{
        snprintf(buf, size, "%s/%s", tmpdir, rel);
}

TEST(test_publish_and_update)
{
        char dir[256];
        HdapsdSysfs *s = NULL;

        sub(dir, sizeof(dir), "plain");
        CHECK_EQ(mkdir(dir, 0755), 0);
        sub(dir, sizeof(dir), "plain/hdapsd");
        CHECK_EQ(hdapsd_sysfs_new(dir, "/nonexistent/hdaps", &s), 0);
        CHECK_EQ(hdapsd_sysfs_publish(s, true, 3, -4, 50, false, false), 0);
        CHECK_STREQ(slurp(dir, "platform/hdaps/position"), "(3,-4)\n");
        CHECK_STREQ(slurp(dir, "platform/hdaps/sampling_rate"), "50\n");
        CHECK_EQ(hdapsd_sysfs_publish(s, true, 3, -4, 100, true, false), 0);
        CHECK_STREQ(slurp(dir, "platform/hdaps/sampling_rate"), "100\n");
        CHECK_STREQ(slurp(dir, "platform/hdaps/keyboard_activity"), "1\n");
        hdapsd_sysfs_free(s);
        CHECK(slurp(dir, "platform/hdaps/position") == NULL); /* removed */
}

TEST(test_symlinked_platform_is_not_followed)
{
        char dir[256], elsewhere[256], link_path[300], target[256];
        HdapsdSysfs *s = NULL;

        sub(dir, sizeof(dir), "link");
        CHECK_EQ(mkdir(dir, 0755), 0);
        sub(dir, sizeof(dir), "link/hdapsd");
        CHECK_EQ(hdapsd_sysfs_new(dir, "/nonexistent/hdaps", &s), 0);
        CHECK_EQ(hdapsd_sysfs_publish(s, true, 1, 2, 50, false, false), 0);

        /* Someone with write access swaps DIR/platform for a link to another tree with an hdaps dir. */
        sub(elsewhere, sizeof(elsewhere), "elsewhere");
        CHECK_EQ(mkdir(elsewhere, 0755), 0);
        sub(target, sizeof(target), "elsewhere/hdaps");
        CHECK_EQ(mkdir(target, 0755), 0);
        snprintf(link_path, sizeof(link_path), "%s/platform", dir);
        char moved[300];
        snprintf(moved, sizeof(moved), "%s/platform.old", dir);
        CHECK_EQ(rename(link_path, moved), 0);
        CHECK_EQ(symlink(elsewhere, link_path), 0);
        CHECK(hdapsd_sysfs_publish(s, true, 1, 2, 100, false, false) < 0);
        CHECK(slurp(elsewhere, "hdaps/sampling_rate") == NULL); /* nothing written through the link */

        /* A link on the way to DIR (a parent component) is not followed either. */
        hdapsd_sysfs_free(s); /* removes DIR/platform: the link itself, not its target */
        CHECK_EQ(access(target, F_OK), 0);
        char linked_parent[256], via_link[300];
        sub(linked_parent, sizeof(linked_parent), "parent-link");
        CHECK_EQ(symlink(elsewhere, linked_parent), 0);
        snprintf(via_link, sizeof(via_link), "%s/hdapsd", linked_parent);
        CHECK_EQ(hdapsd_sysfs_new(via_link, "/nonexistent/hdaps", &s), 0);
        CHECK(hdapsd_sysfs_publish(s, true, 1, 2, 50, false, false) < 0);
        CHECK(slurp(elsewhere, "hdapsd/platform/hdaps/position") == NULL);
        hdapsd_sysfs_free(s);
}

TEST(test_fifo_at_tmp_does_not_block)
{
        char dir[256], fifo[300];
        HdapsdSysfs *s = NULL;

        sub(dir, sizeof(dir), "fifo");
        CHECK_EQ(mkdir(dir, 0755), 0);
        sub(dir, sizeof(dir), "fifo/hdapsd");
        CHECK_EQ(hdapsd_sysfs_new(dir, "/nonexistent/hdaps", &s), 0);
        CHECK_EQ(hdapsd_sysfs_publish(s, true, 1, 2, 50, false, false), 0);
        snprintf(fifo, sizeof(fifo), "%s/platform/hdaps/sampling_rate.tmp", dir);
        CHECK_EQ(mkfifo(fifo, 0644), 0);
        alarm(10); /* a blocked open() fails the test instead of hanging it */
        CHECK_EQ(hdapsd_sysfs_publish(s, true, 1, 2, 200, false, false), 0);
        alarm(0);
        CHECK_STREQ(slurp(dir, "platform/hdaps/sampling_rate"), "200\n");
        struct stat st;
        CHECK(lstat(fifo, &st) < 0 && errno == ENOENT); /* replaced, then renamed away */
        hdapsd_sysfs_free(s);
}

int main(void)
{
        test_scratch_make(tmpdir);
        RUN(test_publish_and_update);
        RUN(test_symlinked_platform_is_not_followed);
        RUN(test_fifo_at_tmp_does_not_block);

        test_scratch_remove(tmpdir);
        return test_summary();
}
