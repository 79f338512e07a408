/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Disk head parking against a fake sysfs tree in a temporary directory (never a real disk). */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "disk-protect.h"
#include "test-helpers.h"

static char root[] = "/tmp/tpaccel-test-disk-XXXXXX";

static void write_file(const char *rel, const char *content)
{
        test_write_file(root, rel, content, strlen(content));
}

static char *read_file(const char *rel, char *buf, size_t size)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        FILE *f = fopen(path, "re");
        buf[0] = '\0';
        if (f) {
                if (!fgets(buf, (int) size, f))
                        buf[0] = '\0';
                fclose(f);
        }
        buf[strcspn(buf, "\n")] = '\0';
        return buf;
}

static void make_disk(const char *name, const char *rotational, const char *removable, bool unload_heads)
{
        char rel[128];
        snprintf(rel, sizeof(rel), "block/%s/queue/rotational", name);
        write_file(rel, rotational);
        snprintf(rel, sizeof(rel), "block/%s/removable", name);
        write_file(rel, removable);
        if (unload_heads) {
                snprintf(rel, sizeof(rel), "block/%s/device/unload_heads", name);
                write_file(rel, "0\n");
        } else {
                snprintf(rel, sizeof(rel), "block/%s/device/model", name);
                write_file(rel, "fake\n");
        }
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

TEST(test_check_errors)
{
        _cleanup_(disk_protect_freep) DiskProtect *d = NULL;
        char *err = NULL;

        CHECK_EQ(disk_protect_new(root, &d), 0);
        CHECK_EQ(disk_protect_check_disk(d, "sda", &err), 0);
        CHECK(err == NULL);

        CHECK_EQ(disk_protect_check_disk(d, "nvme0n1", &err), -EINVAL);
        CHECK_STREQ(err, "Disk 'nvme0n1' is not rotational (queue/rotational is 0)");
        free(err);
        err = NULL;
        CHECK_EQ(disk_protect_check_disk(d, "sdc", &err), -EINVAL);
        CHECK_STREQ(err, "Disk 'sdc' is removable (removable is 1)");
        free(err);
        err = NULL;
        CHECK_EQ(disk_protect_check_disk(d, "sdd", &err), -ENOENT);
        CHECK_STREQ(err,
                    "Disk 'sdd' cannot park its heads (device/unload_heads: No such file or directory)");
        free(err);
        err = NULL;
        CHECK_EQ(disk_protect_check_disk(d, "sdz", &err), -ENOENT);
        CHECK(err && strstr(err, "Disk 'sdz' not found"));
        free(err);
        err = NULL;
        CHECK_EQ(disk_protect_check_disk(d, "../sda", &err), -EINVAL);
        CHECK_STREQ(err, "Invalid disk name '../sda': expected a block device name such as 'sda'");
        free(err);
        err = NULL;
        CHECK_EQ(disk_protect_check_disk(d, "", &err), -EINVAL);
        free(err);
}

TEST(test_set_disks_all_or_nothing)
{
        _cleanup_(disk_protect_freep) DiskProtect *d = NULL;
        char *err = NULL;
        char *good[] = {"sda", "sdb", NULL}, *mixed[] = {"sdb", "sdc", NULL},
             *twice[] = {"sda", "sda", NULL};
        char *none[] = {NULL};

        CHECK_EQ(disk_protect_new(root, &d), 0);
        CHECK(!disk_protect_enabled(d));
        CHECK_STREQ(disk_protect_state_to_string(disk_protect_get_state(d, 0)), "off");
        CHECK_EQ(disk_protect_set_disks(d, good, &err), 0);
        CHECK(disk_protect_enabled(d));
        CHECK_STREQ(disk_protect_get_disks(d)[1], "sdb");

        CHECK_EQ(disk_protect_set_disks(d, mixed, &err), -EINVAL);
        CHECK_STREQ(err, "Disk 'sdc' is removable (removable is 1)");
        free(err);
        err = NULL;
        CHECK_STREQ(disk_protect_get_disks(d)[0], "sda"); /* unchanged */
        CHECK_STREQ(disk_protect_get_disks(d)[1], "sdb");
        CHECK_EQ(disk_protect_set_disks(d, twice, &err), -EINVAL);
        CHECK_STREQ(err, "Disk 'sda' is listed twice");
        free(err);
        err = NULL;

        CHECK_EQ(disk_protect_set_disks(d, none, &err), 0);
        CHECK(!disk_protect_enabled(d));
}

TEST(test_park_rearm_unpark)
{
        _cleanup_(disk_protect_freep) DiskProtect *d = NULL;
        char *sda[] = {"sda", NULL};
        char buf[32];
        uint64_t t = 5000000;

        CHECK_EQ(disk_protect_new(root, &d), 0);
        CHECK_EQ(disk_protect_park(d, t), 0); /* no disks: nothing */
        CHECK_EQ(disk_protect_set_disks(d, sda, NULL), 0);
        CHECK_STREQ(disk_protect_state_to_string(disk_protect_get_state(d, t)), "armed");

        CHECK_EQ(disk_protect_follow(d, true, t), DISK_PROTECT_DID_PARK);
        CHECK_STREQ(read_file("block/sda/device/unload_heads", buf, sizeof(buf)), "2000");
        CHECK(disk_protect_parked(d));
        CHECK_EQ(disk_protect_park_count(d), 1);
        CHECK_STREQ(disk_protect_state_to_string(disk_protect_get_state(d, t)), "parked");

        /* within the re-arm interval nothing is written; after it, a re-arm (not a new park) */
        write_file("block/sda/device/unload_heads", "1950\n");
        CHECK_EQ(disk_protect_follow(d, true, t + 50000), DISK_PROTECT_NOTHING);
        CHECK_STREQ(read_file("block/sda/device/unload_heads", buf, sizeof(buf)), "1950");
        CHECK_EQ(disk_protect_follow(d, true, t + DISK_PARK_REARM_MS * 1000), DISK_PROTECT_DID_REARM);
        CHECK_STREQ(read_file("block/sda/device/unload_heads", buf, sizeof(buf)), "2000");
        CHECK_EQ(disk_protect_park_count(d), 1);

        /* motion over: unpark writes 0 */
        CHECK_EQ(disk_protect_follow(d, false, t + 1000000), DISK_PROTECT_DID_UNPARK);
        CHECK_STREQ(read_file("block/sda/device/unload_heads", buf, sizeof(buf)), "0");
        CHECK(!disk_protect_parked(d));
        CHECK_EQ(disk_protect_follow(d, false, t + 1100000), DISK_PROTECT_NOTHING);

        /* a second shock is a second park */
        CHECK_EQ(disk_protect_follow(d, true, t + 2000000), DISK_PROTECT_DID_PARK);
        CHECK_EQ(disk_protect_park_count(d), 2);

        /* pause: unparks now, no parks until it ends */
        CHECK_EQ(disk_protect_pause(d, t + 2100000, t + 12100000), 0);
        CHECK(!disk_protect_parked(d));
        CHECK_STREQ(read_file("block/sda/device/unload_heads", buf, sizeof(buf)), "0");
        CHECK_EQ(disk_protect_paused_until(d, t + 3000000), t + 12100000);
        CHECK_STREQ(disk_protect_state_to_string(disk_protect_get_state(d, t + 3000000)), "paused");
        CHECK_EQ(disk_protect_follow(d, true, t + 3000000), DISK_PROTECT_NOTHING);
        CHECK_EQ(disk_protect_park_count(d), 2);
        /* the pause ends by itself */
        CHECK_EQ(disk_protect_paused_until(d, t + 12100000), 0);
        CHECK_EQ(disk_protect_follow(d, true, t + 12200000), DISK_PROTECT_DID_PARK);
        /* pause(0) resumes at once */
        CHECK_EQ(disk_protect_pause(d, t + 13000000, t + 20000000), 0);
        CHECK_EQ(disk_protect_pause(d, t + 13100000, 0), 0);
        CHECK_EQ(disk_protect_paused_until(d, t + 13200000), 0);

        /* replacing the set while parked unparks the old disks first */
        char *sdb[] = {"sdb", NULL};
        CHECK_EQ(disk_protect_follow(d, true, t + 14000000), DISK_PROTECT_DID_PARK);
        CHECK_EQ(disk_protect_set_disks(d, sdb, NULL), 0);
        CHECK_STREQ(read_file("block/sda/device/unload_heads", buf, sizeof(buf)), "0");
        CHECK(!disk_protect_parked(d));
}

TEST(test_write_failure_reported)
{
        _cleanup_(disk_protect_freep) DiskProtect *d = NULL;
        char *sda[] = {"sda", NULL};
        char path[512];

        CHECK_EQ(disk_protect_new(root, &d), 0);
        CHECK_EQ(disk_protect_set_disks(d, sda, NULL), 0);
        /* the attribute vanished (disk unplugged): park fails with an errno, not parked */
        snprintf(path, sizeof(path), "%s/block/sda/device/unload_heads", root);
        CHECK_EQ(remove(path), 0);
        CHECK_EQ(disk_protect_park(d, 1000000), -ENOENT);
        CHECK(!disk_protect_parked(d));
        CHECK_EQ(disk_protect_park_count(d), 0);
        write_file("block/sda/device/unload_heads", "0\n");
}

int main(void)
{
        if (!mkdtemp(root))
                return 77;
        make_disk("sda", "1\n", "0\n", true);
        make_disk("sdb", "1\n", "0\n", true);
        make_disk("nvme0n1", "0\n", "0\n", true);
        make_disk("sdc", "1\n", "1\n", true);
        make_disk("sdd", "1\n", "0\n", false);

        RUN(test_check_errors);
        RUN(test_set_disks_all_or_nothing);
        RUN(test_park_rearm_unpark);
        RUN(test_write_failure_reported);

        nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        return test_summary();
}
