/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state file parser and writer: good files, every kind of bad file, and a round trip. */

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state-file.h"
#include "strv.h"
#include "test-helpers.h"

static void expect_error(const char *text, const char *message)
{
        _cleanup_free_ char *error = NULL;
        StateConfig c;
        int r;

        state_config_init(&c);
        c.sampling_rate = 7; /* must survive a failed parse */
        r = state_config_parse(text, strlen(text), "state", &c, NULL, &error);
        CHECK(r == -EINVAL);
        CHECK(c.sampling_rate == 7);
        if (!error || !strstr(error, message))
                fprintf(stderr, "for %s: expected '%s', got '%s'\n", text, message,
                        error ? error : "(null)");
        CHECK(error && strstr(error, message));
}

TEST(test_good)
{
        _cleanup_strv_free_ char **warnings = NULL;
        _cleanup_free_ char *error = NULL;
        const char *text =
                "# comment\n\n sampling_rate = 100 \r\noversampling_ratio=2\nfilter_order=8\ninvert=1\n"
                "rest_position=-498,-439\ntilt_step=2.5\nshock_sensitivity=0.1\n"
                "protected_disks=sda sdb\nnew_key=3\n";
        StateConfig c;

        CHECK(state_config_parse(text, strlen(text), "state", &c, &warnings, &error) == 0);
        CHECK(c.sampling_rate == 100 && c.oversampling_ratio == 2 && c.filter_order == 8 && c.invert);
        CHECK(c.has_rest && c.rest_x == -498 && c.rest_y == -439);
        CHECK(c.tilt_step == 2.5 && c.shock_sensitivity == 0.1);
        CHECK(strv_length(c.protected_disks) == 2 && strcmp(c.protected_disks[1], "sdb") == 0);
        CHECK(strv_length(warnings) == 1 && strstr(warnings[0], "state:11: unknown key 'new_key'"));
        state_config_done(&c);
}

TEST(test_defaults)
{
        _cleanup_free_ char *error = NULL;
        StateConfig c;

        CHECK(state_config_parse("", 0, "state", &c, NULL, &error) == 0);
        CHECK(c.sampling_rate == 50 && c.oversampling_ratio == 5 && c.filter_order == 2 && !c.invert);
        CHECK(!c.has_rest && c.protected_disks == NULL);
        state_config_done(&c);
}

TEST(test_bad)
{
        expect_error("sampling_rate=0\n", "state:1: sampling_rate: 0 is out of range 1..1000");
        expect_error("sampling_rate=1001\n", "out of range 1..1000");
        expect_error("sampling_rate=-5\n", "is not a number");
        expect_error("sampling_rate=5x\n", "is not a number");
        expect_error("sampling_rate=99999999999999999999\n", "is not a number");
        expect_error("\nfilter_order=9\n", "state:2: filter_order: 9 is out of range 1..8");
        expect_error("invert=2\n", "invert: 2 is out of range 0..1");
        expect_error("rest_position=1\n", "expected two integers");
        expect_error("rest_position=1,2,3\n", "expected two integers");
        expect_error("rest_position=40000,1\n", "out of range");
        expect_error("tilt_step=nan\n", "is not a number");
        expect_error("tilt_step=50\n", "out of range");
        expect_error("shock_sensitivity=\n", "is not a number");
        /* plain decimal only (safe_atou64()/safe_atod()): no sign on unsigned values, no hex or inf */
        expect_error("sampling_rate=+5\n", "sampling_rate: '+5' is not a number");
        expect_error("tilt_step=0x10\n", "tilt_step: '0x10' is not a number");
        expect_error("tilt_step=inf\n", "tilt_step: 'inf' is not a number");
        expect_error("tilt_step=1e-400\n", "tilt_step: '1e-400' is not a number");
        /* rest_position quotes the part that is not a number and checks each count's range before what
         * follows it */
        expect_error("rest_position=1,-\n", "rest_position: expected two integers 'X,Y', got '-'");
        expect_error("rest_position=1,2x\n", "rest_position: expected two integers 'X,Y', got '1,2x'");
        expect_error("rest_position=99999x,1\n", "rest_position: 99999 is out of range -32768..32767");
        expect_error("rest_position=1,99999999999999999999\n", "got '9999999999999999...'");
        expect_error("protected_disks=sda ../x\n", "'../x' is not a block device name");
        expect_error("protected_disks=sda sda\n", "listed twice");
        expect_error("just words\n", "state:1: expected 'key=value'");
        expect_error("=1\n", "empty key");
        expect_error("filter_order=2\nfilter_order=3\n", "state:2: duplicate key 'filter_order'");
        expect_error("sampling_rate=1000\noversampling_ratio=100\n", "exceeds 65535");

        char *longline = malloc(STATE_LINE_MAX + 20);
        assert(longline);
        memset(longline, 'a', STATE_LINE_MAX + 10);
        longline[STATE_LINE_MAX + 10] = '\0';
        expect_error(longline, "longer than");
        free(longline);
}

TEST(test_nul_inside)
{
        _cleanup_free_ char *error = NULL;
        static const char text[] = "sampling_rate=1\0\n";
        StateConfig c;

        CHECK(state_config_parse(text, sizeof(text) - 1, "state", &c, NULL, &error) == -EINVAL);
        CHECK(error && strstr(error, "state:1: NUL byte"));
}

TEST(test_round_trip)
{
        char dir[] = "/tmp/test-state-XXXXXX";
        _cleanup_free_ char *path = NULL, *error = NULL;
        StateConfig c, d;

        assert(mkdtemp(dir));
        assert(asprintf(&path, "%s/state", dir) >= 0);

        CHECK(state_config_load(path, &d, NULL, &error) == -ENOENT);

        state_config_init(&c);
        c.sampling_rate = 25;
        c.invert = true;
        c.has_rest = true;
        c.rest_x = -1;
        c.rest_y = 32767;
        c.tilt_step = 0.30000000000000004;
        c.shock_sensitivity = 9.75;
        CHECK(strv_consume(&c.protected_disks, strdup("sda")) == 0);
        CHECK(state_config_save(path, &c) == 0);
        CHECK(state_config_load(path, &d, NULL, &error) == 0);
        CHECK(d.sampling_rate == 25 && d.invert && d.has_rest && d.rest_x == -1 && d.rest_y == 32767);
        CHECK(d.tilt_step == c.tilt_step && d.shock_sensitivity == 9.75);
        CHECK(strv_equal(c.protected_disks, d.protected_disks));
        state_config_done(&c);
        state_config_done(&d);

        _cleanup_free_ char *tmp = NULL;
        assert(asprintf(&tmp, "%s.tmp", path) >= 0);
        CHECK(access(tmp, F_OK) < 0); /* no temp file left behind */
        unlink(path);
        rmdir(dir);
}

/* The writer never follows a link planted in the state directory: not at the old fixed temp name, not
 * at the state path itself (the link is replaced by the new file; its target is left alone). */
TEST(test_save_does_not_follow_links)
{
        char dir[] = "/tmp/test-state-XXXXXX";
        _cleanup_free_ char *path = NULL, *tmp = NULL, *victim = NULL, *victim2 = NULL, *error = NULL;
        struct stat st;
        StateConfig c, d;
        FILE *f;

        assert(mkdtemp(dir));
        assert(asprintf(&path, "%s/state", dir) >= 0);
        assert(asprintf(&tmp, "%s/state.tmp", dir) >= 0);
        assert(asprintf(&victim, "%s/victim", dir) >= 0);
        assert(asprintf(&victim2, "%s/victim2", dir) >= 0);
        for (int i = 0; i < 2; i++) {
                f = fopen(i ? victim2 : victim, "we");
                assert(f);
                fputs("secret\n", f);
                fclose(f);
        }
        assert(symlink(victim, tmp) == 0);
        assert(symlink(victim2, path) == 0);

        state_config_init(&c);
        c.filter_order = 5;
        CHECK(state_config_save(path, &c) == 0);
        CHECK(strcmp(test_read_text(victim), "secret\n") == 0);
        CHECK(strcmp(test_read_text(victim2), "secret\n") == 0);
        CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
        CHECK(lstat(tmp, &st) == 0 && S_ISLNK(st.st_mode)); /* not touched */
        CHECK(state_config_load(path, &d, NULL, &error) == 0 && d.filter_order == 5);
        state_config_done(&d);

        /* A second save next to the first leaves no temp file behind. */
        CHECK(state_config_save(path, &c) == 0);
        DIR *dd = opendir(dir);
        struct dirent *de;
        unsigned entries = 0;
        assert(dd);
        while ((de = readdir(dd)))
                if (de->d_name[0] != '.' || strstr(de->d_name, ".tmp"))
                        entries++;
        closedir(dd);
        CHECK(entries == 4); /* state, state.tmp (the planted link), victim, victim2 */
        state_config_done(&c);

        /* Temp files of an interrupted write are removed (a link among them is removed, not followed). */
        _cleanup_free_ char *stale = NULL, *stale_link = NULL;
        assert(asprintf(&stale, "%s/.state.0123456789abcdef.tmp", dir) >= 0);
        assert(asprintf(&stale_link, "%s/.state.fedcba9876543210.tmp", dir) >= 0);
        f = fopen(stale, "we");
        assert(f);
        fclose(f);
        assert(symlink(victim, stale_link) == 0);
        CHECK(state_config_remove_stale(path) == 2);
        CHECK(access(stale, F_OK) < 0 && access(victim, F_OK) == 0 && access(tmp, F_OK) == 0);

        unlink(path);
        unlink(tmp);
        unlink(victim);
        unlink(victim2);
        CHECK(rmdir(dir) == 0);
}

static void expect_load_error(const char *path, int err, const char *message)
{
        _cleanup_free_ char *error = NULL;
        StateConfig c;
        int r;

        state_config_init(&c);
        r = state_config_load(path, &c, NULL, &error);
        CHECK(r == err);
        if (!error || !strstr(error, message))
                fprintf(stderr, "loading %s: expected %d '%s', got %d '%s'\n", path, err, message, r,
                        error ? error : "(null)");
        CHECK(error && strstr(error, message));
        state_config_done(&c);
}

static void on_alarm(int sig)
{
        static const char msg[] = "state_config_load() blocked on a FIFO\n";
        (void) !write(STDERR_FILENO, msg, sizeof(msg) - 1);
        _exit(EXIT_FAILURE);
}

/* Only a regular file owned by us is read: links, FIFOs (which would block open()), directories,
 * files of other users and hard links are refused with a message saying which. */
TEST(test_load_refuses_what_is_not_a_state_file)
{
        char dir[] = "/tmp/test-state-XXXXXX";
        _cleanup_free_ char *path = NULL, *secret = NULL, *other = NULL;
        FILE *f;

        assert(mkdtemp(dir));
        assert(asprintf(&path, "%s/state", dir) >= 0);
        assert(asprintf(&secret, "%s/secret", dir) >= 0);
        assert(asprintf(&other, "%s/other", dir) >= 0);
        f = fopen(secret, "we");
        assert(f);
        fputs("sampling_rate=25\n", f);
        fclose(f);

        assert(symlink(secret, path) == 0);
        expect_load_error(path, -ELOOP, "is a symbolic link");
        unlink(path);

        assert(mkfifo(path, 0600) == 0);
        signal(SIGALRM, on_alarm);
        alarm(10);
        expect_load_error(path, -EINVAL, "is not a regular file (a FIFO)");
        alarm(0);
        unlink(path);

        assert(mkdir(path, 0700) == 0);
        expect_load_error(path, -EISDIR, "is a directory");
        rmdir(path);

        assert(link(secret, path) == 0);
        expect_load_error(path, -EPERM, "has 2 hard links");
        unlink(path);

        f = fopen(path, "we");
        assert(f);
        fputs("sampling_rate=25\n", f);
        fclose(f);
        if (geteuid() == 0) {
                assert(chown(path, 65534, 65534) == 0);
                expect_load_error(path, -EPERM, "is owned by uid 65534");
        }
        unlink(path);
        unlink(secret);
        CHECK(rmdir(dir) == 0);
}

/* A file that is not a state file (say /etc/shadow) is quoted only as a short escaped excerpt. */
TEST(test_messages_quote_only_excerpts)
{
        static const char shadow[] = "root:$y$j9T$SALTSALTSALT$HASHHASHHASHHASHHASH:19700:0:99999:7:::\n";
        static const char binary[] = "filter_order=\x01\x02\xff\x1b[2J\n";
        _cleanup_free_ char *error = NULL, *error2 = NULL, *error3 = NULL;
        _cleanup_strv_free_ char **warnings = NULL;
        char key[300];
        StateConfig c;

        CHECK(state_config_parse(shadow, strlen(shadow), "state", &c, NULL, &error) == -EINVAL);
        CHECK(error && strstr(error, "expected 'key=value', got 'root:$y$j9T$SALT...'"));
        CHECK(error && !strstr(error, "HASH") && strlen(error) < 80);

        CHECK(state_config_parse(binary, strlen(binary), "state", &c, NULL, &error2) == -EINVAL);
        CHECK(error2 && strstr(error2, "'\\x01\\x02\\xff\\x1b[2J' is not a number"));
        for (const char *e = error2; e && *e; e++)
                CHECK(*e >= 0x20 && *e < 0x7f);

        memset(key, 'k', sizeof(key));
        memcpy(key + sizeof(key) - 4, "=1\n", 4);
        CHECK(state_config_parse(key, sizeof(key) - 1, "state", &c, &warnings, &error3) == 0);
        CHECK(strv_length(warnings) == 1 && strlen(warnings[0]) < 80 && strstr(warnings[0], "kkkk..."));
        state_config_done(&c);
}

TEST(test_range_errors_print_enough_digits)
{
        expect_error("shock_sensitivity=10.0000001\n", "10.0000001 is out of range 0.1..10");
        expect_error("tilt_step=0.09999999999999999\n", "0.09999999999999999 is out of range 0.1..45");
}

int main(void)
{
        RUN(test_good);
        RUN(test_defaults);
        RUN(test_bad);
        RUN(test_nul_inside);
        RUN(test_round_trip);
        RUN(test_save_does_not_follow_links);
        RUN(test_load_refuses_what_is_not_a_state_file);
        RUN(test_messages_quote_only_excerpts);
        RUN(test_range_errors_print_enough_digits);
        return test_summary();
}
