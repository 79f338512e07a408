/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Detection on fake sysfs/procfs trees, and the model table with its axis codes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ec-detect.h"
#include "hdaps-models.h"
#include "test-helpers.h"

static char root[] = "/tmp/tpaccel-detect-XXXXXX";

static void write_file(const char *rel, const char *content, size_t len)
{
        test_write_file(root, rel, content, len);
}

static void reset_tree(void)
{
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'/* 2>/dev/null", root);
        if (system(cmd) != 0)
                fprintf(stderr, "cleanup failed: %s\n", cmd);
}

static void set_dmi(const char *vendor, const char *version)
{
        char buf[128];
        snprintf(buf, sizeof(buf), "%s\n", vendor);
        write_file("sys/class/dmi/id/board_vendor", buf, strlen(buf));
        snprintf(buf, sizeof(buf), "%s\n", version);
        write_file("sys/class/dmi/id/product_version", buf, strlen(buf));
}

TEST(test_oem_string_allows_probe)
{
        reset_tree();
        set_dmi("IBM", "ThinkPad T42");
        static const char raw[] = "\x0b\x05\x12\x00\x01"
                                  "IBM ThinkPad Embedded Controller -[1RHT71WW-3.04    ]-\0\0";
        write_file("sys/firmware/dmi/entries/11-0/raw", raw, sizeof(raw));

        EcDmi d;
        const char *why;
        CHECK_EQ(ec_dmi_read(root, &d), 0);
        CHECK(d.has_ec_oem_string);
        CHECK_STREQ(d.board_vendor, "IBM");
        CHECK(ec_dmi_allows_probe(&d, &why));
        CHECK(strstr(why, "OEM string") != NULL);
        ec_dmi_done(&d);
}

TEST(test_seed_whitelist_and_lenovo_models)
{
        EcDmi d;
        const char *why;

        reset_tree();
        set_dmi("IBM", "ThinkPad X24");
        ec_dmi_read(root, &d);
        CHECK(!d.has_ec_oem_string);
        CHECK(ec_dmi_allows_probe(&d, &why));
        ec_dmi_done(&d);

        reset_tree();
        set_dmi("LENOVO", "ThinkPad X220");
        ec_dmi_read(root, &d);
        CHECK(ec_dmi_allows_probe(&d, &why));
        ec_dmi_done(&d);

        /* An Ivy Bridge ThinkPad has no LPC3 interface: never probed. */
        reset_tree();
        set_dmi("LENOVO", "ThinkPad T430");
        ec_dmi_read(root, &d);
        CHECK(!ec_dmi_allows_probe(&d, &why));
        CHECK(strstr(why, "neither") != NULL);
        ec_dmi_done(&d);

        /* Not a ThinkPad at all, and unreadable DMI. */
        reset_tree();
        set_dmi("Dell Inc.", "Latitude");
        ec_dmi_read(root, &d);
        CHECK(!ec_dmi_allows_probe(&d, &why));
        ec_dmi_done(&d);

        reset_tree();
        ec_dmi_read(root, &d);
        CHECK(d.board_vendor == NULL);
        CHECK(!ec_dmi_allows_probe(&d, &why));
        CHECK(strstr(why, "not readable") != NULL);
        ec_dmi_done(&d);
}

TEST(test_ports_owner)
{
        char *owner = NULL;

        reset_tree();
        static const char free_ports[] =
                "0000-0cf7 : PCI Bus 0000:00\n  0000-001f : dma1\n1800-18fe : pnp 00:01\n";
        write_file("proc/ioports", free_ports, strlen(free_ports));
        CHECK_EQ(ec_ports_owner(root, &owner), 0);

        static const char mainline[] = "0000-0cf7 : PCI Bus 0000:00\n1600-162f : hdaps\n";
        write_file("proc/ioports", mainline, strlen(mainline));
        CHECK_EQ(ec_ports_owner(root, &owner), 1);
        CHECK(owner && strstr(owner, "hdaps") && strstr(owner, "1600-162f"));
        free(owner);

        /* Unprivileged readers see zeros everywhere: not taken for an owner. */
        static const char hidden[] = "0000-0000 : PCI Bus 0000:00\n0000-0000 : thinkpad_ec\n";
        write_file("proc/ioports", hidden, strlen(hidden));
        CHECK_EQ(ec_ports_owner(root, &owner), 0);

        /* thinkpad_ec force_io=1 leaves no /proc/ioports entry; the module directory shows it. */
        char path[512];
        snprintf(path, sizeof(path), "%s/sys/module/thinkpad_ec", root);
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
        CHECK_EQ(system(cmd), 0);
        CHECK_EQ(ec_ports_owner(root, &owner), 1);
        CHECK(owner && strstr(owner, "thinkpad_ec"));
        free(owner);
}

TEST(test_model_table)
{
        CHECK_EQ(hdaps_axis_code_for_model("LENOVO", "ThinkPad X60 Tablet"), 3);
        CHECK_EQ(hdaps_axis_code_for_model("LENOVO", "ThinkPad X60s"), 3);
        CHECK_EQ(hdaps_axis_code_for_model("LENOVO", "ThinkPad X60"), 6);
        CHECK_EQ(hdaps_axis_code_for_model("LENOVO", "ThinkPad T400s"), 2);
        CHECK_EQ(hdaps_axis_code_for_model("LENOVO", "ThinkPad T400"), 1);
        CHECK_EQ(hdaps_axis_code_for_model("IBM", "ThinkPad T42p"), 1);
        CHECK_EQ(hdaps_axis_code_for_model("IBM", "ThinkPad T42"), 0);
        CHECK_EQ(hdaps_axis_code_for_model("LENOVO", "ThinkPad T60p"), 1);
        CHECK_EQ(hdaps_axis_code_for_model("LENOVO", "ThinkPad X220"), 4);
        CHECK_EQ(hdaps_axis_code_for_model("LENOVO", "ThinkPad X230"), 0);
        CHECK_EQ(hdaps_axis_code_for_model(NULL, "ThinkPad X60"), 0);
}

TEST(test_axis_codes)
{
        /* The eight codes applied to the readout (X=3, Y=5), from tp_smapi's table. */
        static const int expect[8][2] = {{3, 5}, {-3, -5}, {-3, 5}, {3, -5},
                                         {5, 3}, {-5, -3}, {-5, 3}, {5, -3}};
        for (unsigned c = 0; c < 8; c++) {
                int x, y;
                hdaps_axes_transform(c, 3, 5, &x, &y);
                CHECK_EQ(x, expect[c][0]);
                CHECK_EQ(y, expect[c][1]);
        }
}

int main(void)
{
        test_scratch_make(root);
        RUN(test_oem_string_allows_probe);
        RUN(test_seed_whitelist_and_lenovo_models);
        RUN(test_ports_owner);
        RUN(test_model_table);
        RUN(test_axis_codes);
        test_scratch_remove(root);
        return test_summary();
}
