/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The automatic backend choice for every combination of its facts, and the kernel backend's pure
 * helpers: flavour detection on fake trees, attribute parsing, the invert mapping per flavour. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test-helpers.h"
#include "backend-choose.h"
#include "ec-detect.h"
#include "hdaps-models.h"
#include "kernel-sysfs.h"

#define DMI_OK_REASON "DMI has the OEM string \"IBM ThinkPad Embedded Controller\""
#define DMI_NO_REASON "DMI has neither the ThinkPad EC OEM string nor a known HDAPS model"

static void check_choice(const BackendFacts *f, int want_r, BackendKind want_kind, const char *want_substr)
{
        BackendKind kind = _BACKEND_KIND_INVALID;
        char *reason = NULL;
        int r = backend_choose(f, &kind, &reason);

        CHECK_EQ(r, want_r);
        if (want_r == 0)
                CHECK_EQ(kind, want_kind);
        CHECK(reason != NULL);
        if (reason && !strstr(reason, want_substr)) {
                fprintf(stderr, "reason \"%s\" lacks \"%s\"\n", reason, want_substr);
                test_failed++;
        }
        free(reason);
}

static void test_choice_combinations(void)
{
        /* Every combination of DMI x ports owner x kernel driver x ioperm x devport. */
        for (int dmi = 0; dmi < 2; dmi++)
                for (int owner = 0; owner < 2; owner++)
                        for (KernelDriverFlavour k = 0; k < _KERNEL_DRIVER_FLAVOUR_MAX; k++)
                                for (int io = 0; io < 2; io++)
                                        for (int dp = 0; dp < 2; dp++) {
                                                BackendFacts f = {
                                                        .dmi_allows_probe = dmi,
                                                        .dmi_reason = dmi ? DMI_OK_REASON : DMI_NO_REASON,
                                                        .ports_owner =
                                                                owner ? "thinkpad_ec (ports 1600-161f in "
                                                                        "/proc/ioports)"
                                                                      : NULL,
                                                        .kernel_driver = k,
                                                        .ioperm_ok = io,
                                                        .ioperm_error =
                                                                io ? NULL : "ioperm() failed: ENOSYS",
                                                        .devport_ok = dp,
                                                        .devport_error = dp ? NULL : "/dev/port: EACCES",
                                                };

                                                CHECK_EQ(backend_choice_needs_port_access(&f),
                                                         dmi && !owner && k == KERNEL_DRIVER_NONE);
                                                if (k != KERNEL_DRIVER_NONE)
                                                        /* The driver wins whatever else is true. */
                                                        check_choice(&f, 0, BACKEND_KERNEL,
                                                                     kernel_driver_flavour_to_string(k));
                                                else if (!dmi)
                                                        check_choice(&f, -ENODEV, 0, DMI_NO_REASON);
                                                else if (owner)
                                                        check_choice(&f, -ENODEV, 0,
                                                                     "in use by thinkpad_ec");
                                                else if (io)
                                                        check_choice(&f, 0, BACKEND_IOPERM,
                                                                     "ioperm() works");
                                                else if (dp)
                                                        check_choice(
                                                                &f, 0, BACKEND_DEVPORT,
                                                                "ioperm() failed: ENOSYS, so /dev/port");
                                                else
                                                        check_choice(&f, -ENODEV, 0, "/dev/port: EACCES");
                                        }
}

static void test_choice_reasons_say_what_to_do(void)
{
        BackendFacts f = {.kernel_driver = KERNEL_DRIVER_MAINLINE, .ports_owner = "hdaps"};

        check_choice(&f, 0, BACKEND_KERNEL, "unload and blacklist the module for the EC features");
        f = (BackendFacts) {.ports_owner = "kernel module tp_smapi", .dmi_allows_probe = true};
        check_choice(&f, -ENODEV, 0, "load the hdaps module for the kernel backend");
        f = (BackendFacts) {.dmi_reason = DMI_NO_REASON};
        check_choice(&f, -ENODEV, 0, "no kernel hdaps driver is loaded");
}

/* --backend=ioperm|devport: auto's checks, every combination; --force overrides and says what. */
static void test_direct_access_checks(void)
{
        for (int dmi = 0; dmi < 2; dmi++)
                for (int owner = 0; owner < 2; owner++)
                        for (KernelDriverFlavour k = 0; k < _KERNEL_DRIVER_FLAVOUR_MAX; k++)
                                for (int force = 0; force < 2; force++) {
                                        BackendFacts f = {
                                                .dmi_allows_probe = dmi,
                                                .dmi_reason = dmi ? DMI_OK_REASON : DMI_NO_REASON,
                                                .ports_owner = owner ? "thinkpad_ec (ports 1600-161f in "
                                                                       "/proc/ioports)"
                                                                     : NULL,
                                                .kernel_driver = k,
                                        };
                                        bool pass = dmi && !owner && k == KERNEL_DRIVER_NONE;
                                        char *reason = NULL;
                                        int r = backend_check_direct_access(&f, BACKEND_DEVPORT, force,
                                                                            &reason);

                                        CHECK_EQ(r, pass || force ? 0 : -EPERM);
                                        CHECK(reason != NULL);
                                        if (!reason)
                                                continue;
                                        /* Each failed check is named, and only those. */
                                        CHECK_EQ(strstr(reason, DMI_NO_REASON) != NULL, !dmi);
                                        CHECK_EQ(strstr(reason, "in use by thinkpad_ec") != NULL,
                                                 owner && 1);
                                        CHECK_EQ(strstr(reason, "hdaps driver is loaded and owns") != NULL,
                                                 k != KERNEL_DRIVER_NONE);
                                        if (k != KERNEL_DRIVER_NONE)
                                                CHECK(strstr(reason, kernel_driver_flavour_to_string(k)));
                                        if (pass)
                                                CHECK(strstr(reason, "the EC ports are free"));
                                        else if (force)
                                                CHECK(strstr(reason,
                                                             "--force overrides the safety checks: "));
                                        else
                                                CHECK(strstr(reason, "--backend=devport refused: ") ==
                                                              reason &&
                                                      strstr(reason, "--force"));
                                        free(reason);
                                }
        char *reason = NULL;
        BackendFacts f = {.dmi_reason = DMI_NO_REASON};
        CHECK_EQ(backend_check_direct_access(&f, BACKEND_IOPERM, false, &reason), -EPERM);
        CHECK(reason && strstr(reason, "--backend=ioperm refused: "));
        free(reason);
}

static char tmp_root[] = "/tmp/test-backend-choose-XXXXXX";

static void write_file(const char *rel, const char *content)
{
        test_write_file(tmp_root, rel, content, strlen(content));
}

static int open_attr(const char *name)
{
        char path[512];

        snprintf(path, sizeof(path), "%s/%s/%s", tmp_root, KERNEL_HDAPS_DIR, name);
        return open(path, O_RDWR | O_CLOEXEC);
}

static void test_flavour_detection(void)
{
        char cmd[600];

        CHECK_EQ(kernel_hdaps_detect(tmp_root), KERNEL_DRIVER_NONE);
        write_file(KERNEL_HDAPS_DIR "/invert", "0\n"); /* a device without position is no device */
        CHECK_EQ(kernel_hdaps_detect(tmp_root), KERNEL_DRIVER_NONE);
        write_file(KERNEL_HDAPS_DIR "/position", "(1,2)\n");
        write_file(KERNEL_HDAPS_DIR "/variance", "(0,0)\n");
        CHECK_EQ(kernel_hdaps_detect(tmp_root), KERNEL_DRIVER_MAINLINE);
        write_file(KERNEL_HDAPS_DIR "/sampling_rate", "50\n");
        CHECK_EQ(kernel_hdaps_detect(tmp_root), KERNEL_DRIVER_TP_SMAPI);

        int fds[_KERNEL_ATTR_MAX];
        char dir[512];
        snprintf(dir, sizeof(dir), "%s/%s", tmp_root, KERNEL_HDAPS_DIR);
        CHECK_EQ(kernel_attrs_open(dir, fds), 0);
        CHECK(fds[KERNEL_ATTR_POSITION] >= 0);
        CHECK(fds[KERNEL_ATTR_SAMPLING_RATE] >= 0);
        CHECK_EQ(fds[KERNEL_ATTR_FILTER_ORDER], -1);
        kernel_attrs_close(fds);
        CHECK_EQ(fds[KERNEL_ATTR_POSITION], -1);

        snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", tmp_root, KERNEL_HDAPS_DIR);
        CHECK_EQ(system(cmd), 0);
        CHECK_EQ(kernel_attrs_open(dir, fds), -ENODEV);
        CHECK_EQ(kernel_hdaps_detect(tmp_root), KERNEL_DRIVER_NONE);
}

static void test_attribute_parsing(void)
{
        int fd, x = 7, y = 7, v = 7;

        write_file(KERNEL_HDAPS_DIR "/position", "(-498,-439)\n");
        fd = open_attr("position");
        CHECK_EQ(kernel_attr_read_pair(fd, &x, &y), 0);
        CHECK_EQ(x, -498);
        CHECK_EQ(y, -439);
        close(fd);

        /* Anything but "(X,Y)" with trailing whitespace is refused and changes nothing. */
        const char *bad_pairs[] = {"", "(1,2", "1,2", "(1,2)x\n", "(a,b)\n", "(1;2)\n"};
        for (size_t i = 0; i < ELEMENTSOF(bad_pairs); i++) {
                write_file(KERNEL_HDAPS_DIR "/position", bad_pairs[i]);
                fd = open_attr("position");
                x = y = 7;
                CHECK_EQ(kernel_attr_read_pair(fd, &x, &y), -EIO);
                CHECK_EQ(x, 7);
                CHECK_EQ(y, 7);
                close(fd);
        }

        write_file(KERNEL_HDAPS_DIR "/temp1", "34\n");
        fd = open_attr("temp1");
        CHECK_EQ(kernel_attr_read_int(fd, &v), 0);
        CHECK_EQ(v, 34);
        close(fd);
        const char *bad_ints[] = {"", "x\n", "34C\n", "99999999999\n"};
        for (size_t i = 0; i < ELEMENTSOF(bad_ints); i++) {
                write_file(KERNEL_HDAPS_DIR "/temp1", bad_ints[i]);
                fd = open_attr("temp1");
                v = 7;
                CHECK_EQ(kernel_attr_read_int(fd, &v), -EIO);
                CHECK_EQ(v, 7);
                close(fd);
        }
        CHECK_EQ(kernel_attr_read_int(-1, &v), -ENODEV);

        /* A shorter value replaces a longer one completely. */
        write_file(KERNEL_HDAPS_DIR "/sampling_rate", "1000\n");
        fd = open_attr("sampling_rate");
        CHECK_EQ(kernel_attr_write_uint(fd, 5), 0);
        CHECK_EQ(kernel_attr_read_int(fd, &v), 0);
        CHECK_EQ(v, 5);
        close(fd);
        CHECK_EQ(kernel_attr_write_uint(-1, 5), -EOPNOTSUPP);
}

/* The PCI bridge window that spans the EC ports on every PC is not an owner; a claim nested in it is. */
static void test_ports_owner_ignores_bridge_windows(void)
{
        char *owner = NULL;

        write_file("proc/ioports", "0000-0cf7 : PCI Bus 0000:00\n"
                                   "  0000-001f : dma1\n"
                                   "0d00-ffff : PCI Bus 0000:00\n"
                                   "  1800-18fe : pnp 00:02\n");
        CHECK_EQ(ec_ports_owner(tmp_root, &owner), 0);
        CHECK(owner == NULL);

        write_file("proc/ioports", "0000-0cf7 : PCI Bus 0000:00\n"
                                   "0d00-ffff : PCI Bus 0000:00\n"
                                   "  1600-161f : thinkpad_ec\n");
        CHECK_EQ(ec_ports_owner(tmp_root, &owner), 1);
        CHECK_STREQ(owner, "thinkpad_ec (ports 1600-161f in /proc/ioports)");
        free(owner);
}

static void test_invert_mapping(void)
{
        unsigned code = 99;

        /* Mainline: bit 0 negates X, bit 1 negates Y. */
        const struct {
                int invert;
                int want_x, want_y; /* the driver's output for hardware (10, 20) */
        } mainline[] = {{0, 10, 20}, {1, -10, 20}, {2, 10, -20}, {3, -10, -20}};
        for (size_t i = 0; i < ELEMENTSOF(mainline); i++) {
                int x, y;
                CHECK_EQ(kernel_invert_to_axis_code(KERNEL_DRIVER_MAINLINE, mainline[i].invert, &code), 0);
                hdaps_axes_transform(code, 10, 20, &x, &y);
                CHECK_EQ(x, mainline[i].want_x);
                CHECK_EQ(y, mainline[i].want_y);
        }
        code = 99;
        CHECK_EQ(kernel_invert_to_axis_code(KERNEL_DRIVER_MAINLINE, 4, &code), -EINVAL);
        CHECK_EQ(kernel_invert_to_axis_code(KERNEL_DRIVER_MAINLINE, -1, &code), -EINVAL);
        CHECK_EQ(code, 99u);

        /* tp_smapi: the value is the axis code; invert=1 negates both (not X as in mainline). */
        for (int v = 0; v <= HDAPS_AXIS_CODE_MAX; v++) {
                CHECK_EQ(kernel_invert_to_axis_code(KERNEL_DRIVER_TP_SMAPI, v, &code), 0);
                CHECK_EQ(code, (unsigned) v);
        }
        CHECK_EQ(kernel_invert_to_axis_code(KERNEL_DRIVER_TP_SMAPI, 8, &code), -EINVAL);
        CHECK_EQ(kernel_invert_to_axis_code(KERNEL_DRIVER_NONE, 0, &code), -EINVAL);

        /* Untransform undoes every code. */
        for (unsigned c = 0; c <= HDAPS_AXIS_CODE_MAX; c++) {
                int x, y, hx, hy;
                hdaps_axes_transform(c, 123, -45, &x, &y);
                kernel_axes_untransform(c, x, y, &hx, &hy);
                CHECK_EQ(hx, 123);
                CHECK_EQ(hy, -45);
        }
}

int main(void)
{
        char cmd[600];

        if (!mkdtemp(tmp_root)) {
                perror("mkdtemp");
                return 1;
        }
        test_choice_combinations();
        test_choice_reasons_say_what_to_do();
        test_direct_access_checks();
        test_flavour_detection();
        test_attribute_parsing();
        test_invert_mapping();
        test_ports_owner_ignores_bridge_windows();
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_root);
        if (system(cmd) != 0)
                fprintf(stderr, "could not remove %s\n", tmp_root);
        return test_summary();
}
