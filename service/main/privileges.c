/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Dropping privileges once the backend holds its port access (privileges.h). */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "macros.h"
#include "privileges.h"

static inline void closedirp(DIR **d)
{
        if (*d)
                closedir(*d);
}

typedef struct CapSets {
        struct __user_cap_header_struct header;
        struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
} CapSets;

static int caps_get(CapSets *ret)
{
        *ret = (CapSets){.header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0}};
        if (syscall(SYS_capget, &ret->header, ret->data) < 0)
                return -errno;
        return 0;
}

static bool caps_empty(const CapSets *c)
{
        for (size_t i = 0; i < ELEMENTSOF(c->data); i++)
                if (c->data[i].effective || c->data[i].permitted || c->data[i].inheritable)
                        return false;
        return true;
}

/* Chowns a directory and the regular files directly in it: the state directory, so that the daemon can
 * still replace its state file after the switch (the writer renames a temporary file over it), and the
 * EC lock's directory. */
static int chown_dir(const char *dir, uid_t uid, gid_t gid)
{
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        int fd;

        fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                if (errno == ENOENT)
                        return 0;
                return log_error_errno(-errno, "Cannot open the directory %s: %m", dir);
        }
        d = fdopendir(fd);
        if (!d) {
                int r = -errno;
                close(fd);
                return log_error_errno(r, "Cannot read the directory %s: %m", dir);
        }
        if (fchown(dirfd(d), uid, gid) < 0)
                return log_error_errno(-errno, "Cannot hand the directory %s to uid %u: %m", dir,
                                       (unsigned) uid);
        while ((de = readdir(d))) {
                struct stat st;

                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;
                if (fchownat(dirfd(d), de->d_name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
                        return log_error_errno(-errno, "Cannot hand %s/%s to uid %u: %m", dir, de->d_name,
                                               (unsigned) uid);
        }
        return 0;
}

static int switch_user(const char *user, const char *state_dir, const char *runtime_dir)
{
        struct passwd *pw;
        int r;

        errno = 0;
        pw = getpwnam(user);
        if (!pw) {
                if (errno != 0 && errno != ENOENT && errno != ESRCH)
                        return log_error_errno(-errno, "Cannot look up the user %s: %m", user);
                log_warning("User %s does not exist (systemd-sysusers creates it from tpaccel.sysusers); "
                            "staying uid %u without any capability",
                            user, (unsigned) geteuid());
                return 0;
        }
        if (pw->pw_uid == geteuid())
                return 0;

        if (state_dir) {
                r = chown_dir(state_dir, pw->pw_uid, pw->pw_gid);
                if (r < 0)
                        return r;
        }
        if (runtime_dir) { /* the EC lock's: a later start as the user (the unit) can open the lock */
                r = chown_dir(runtime_dir, pw->pw_uid, pw->pw_gid);
                if (r < 0)
                        return r;
        }
        if (setgroups(0, NULL) < 0)
                return log_error_errno(-errno, "Cannot drop the supplementary groups: %m");
        if (setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0)
                return log_error_errno(-errno, "Cannot switch to gid %u: %m", (unsigned) pw->pw_gid);
        if (setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0)
                return log_error_errno(-errno, "Cannot switch to user %s (uid %u): %m", user,
                                       (unsigned) pw->pw_uid);
        log_info("Running as user %s (uid %u, gid %u)", user, (unsigned) pw->pw_uid, (unsigned) pw->pw_gid);
        return 0;
}

/* Empties the bounding set so that nothing executed later could ever get a capability back. Needs
 * CAP_SETPCAP; without it (a unit with User=) the unit's CapabilityBoundingSet= already limits it. */
static void drop_bounding_set(void)
{
        for (unsigned long cap = 0;; cap++) {
                int in_set = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
                if (in_set < 0)
                        return; /* EINVAL: past the last capability this kernel knows */
                if (in_set == 0)
                        continue;
                if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
                        log_debug_errno(-errno, "Keeping the capability bounding set: %m");
                        return;
                }
        }
}

int privileges_drop(const char *user, const char *state_dir, const char *runtime_dir)
{
        CapSets caps;
        int r;

        /* Before the uid switch: emptying the bounding set needs CAP_SETPCAP. */
        drop_bounding_set();

        if (user && geteuid() == 0) {
                r = switch_user(user, state_dir, runtime_dir);
                if (r < 0)
                        return r;
        }

        if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
                return log_error_errno(-errno, "Cannot clear keep-capabilities: %m");
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return log_error_errno(-errno, "Cannot clear the ambient capabilities: %m");

        caps = (CapSets){.header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0}};
        if (syscall(SYS_capset, &caps.header, caps.data) < 0)
                return log_error_errno(-errno, "Cannot drop the capabilities: %m");
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return log_error_errno(-errno, "Cannot set no_new_privs: %m");

        r = caps_get(&caps);
        if (r < 0)
                return log_error_errno(r, "Cannot read back the capabilities: %m");
        if (!caps_empty(&caps))
                return log_error_errno(-EPERM, "Capabilities are still held after dropping them");

        log_debug("Dropped every capability (uid %u, no_new_privs set)", (unsigned) geteuid());
        return 0;
}
