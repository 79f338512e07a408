/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Compiled at test time only (test-reference.py): tp_smapi 0.43's hdaps.c, unmodified, from the
 * unpacked Debian package (-I to its directory), followed by the entry points and the state the
 * runner reads (reference-runner.c, struct RefApi). */
#include "hdaps.c"

int ref_hdaps_init(void)
{
        return hdaps_init();
}

void ref_hdaps_exit(void)
{
        hdaps_exit();
}

struct timer_list *ref_hdaps_timer(void)
{
        return &hdaps_timer;
}

/* The input device's open and close: polling starts and stops. */
int ref_hdaps_open(void)
{
        return hdaps_idev_raw->open(hdaps_idev_raw);
}

void ref_hdaps_close(void)
{
        hdaps_idev_raw->close(hdaps_idev_raw);
}

/* The readout state after a tick: stale_readout is 0 only when this tick's __hdaps_update() parsed one. */
void ref_hdaps_state(int *ret_x, int *ret_y, int *ret_temp, int *ret_stale)
{
        *ret_x = hdaps_idev_raw->abs[ABS_X];
        *ret_y = hdaps_idev_raw->abs[ABS_Y];
        *ret_temp = temperature;
        *ret_stale = stale_readout;
}

/* A sysfs read of position (the on-demand path, hdaps_update()). */
long ref_hdaps_position_show(char *buf)
{
        return (long) dev_attr_position.show(&pdev->dev, &dev_attr_position, buf);
}

/* A sysfs write to one of the device's attributes, by name ("oversampling_ratio"). -ENOENT: no such. */
long ref_hdaps_store(const char *name, const char *buf)
{
        for (struct attribute **a = hdaps_attribute_group.attrs; *a; a++) {
                struct device_attribute *da = (struct device_attribute *) *a; /* attr is the first member */
                if (strcmp((*a)->name, name) == 0 && da->store)
                        return (long) da->store(&pdev->dev, da, buf, strlen(buf));
        }
        return -ENOENT;
}
