/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccelctl: command line client of tpacceld (org.thinkpad.Accelerometer). Option parsing and
 * command dispatch; the commands live in ctl-*.c. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "accel-props.h"
#include "config.h"
#include "ctl.h"

#define DEFAULT_DATA_MASK 0xFFFF

typedef ExitStatus (*CommandFunc)(Ctl *ctl, char **args, int n_args);

typedef struct Command {
        const char *name;
        CommandFunc run;
        const char *synopsis;
        const char *summary;
        const char *help;
        gboolean json;    /* accepts --json */
        gboolean samples; /* accepts --samples */
        gboolean data_mask;
        gboolean seconds; /* accepts --seconds */
} Command;

static const Command commands[] = {
        {"status", ctl_status, "status [--json]", N_("Show every property"),
         N_("Show every property of the accelerometer."), TRUE},
        {"monitor", ctl_monitor, "monitor [--samples]", N_("Print events live until Ctrl-C"),
         N_("Claim the accelerometer and print Tilt, Shock, orientation and head-parking events, one line\n"
            "each with a timestamp, until Ctrl-C (then release). --samples adds every readout, from the\n"
            "sample stream (AcquireStream), with its activity, shock and missed flags."),
         FALSE, TRUE},
        {"get", ctl_get, "get KEY... [--json]", N_("Print properties"),
         N_("Print the properties named, one value per line, all from one call to the service. With "
            "--json:\n"
            "one key's JSON value, or an object of the keys' values for several."),
         TRUE},
        {"set", ctl_set, "set KEY VALUE...", N_("Change a setting"),
         N_("Change a setting (polkit: org.thinkpad.accelerometer.configure). Booleans take yes/no,\n"
            "protected-disks takes disk names (sda sdb) or none.")},
        {"calibrate", ctl_calibrate, "calibrate", N_("Take the current position as rest"),
         N_("Take the next readout as the rest position (polkit: org.thinkpad.accelerometer.calibrate).")},
        {"pause", ctl_pause, "pause SECONDS", N_("Pause disk protection"),
         N_("Suspend disk protection for 1..3600 seconds; 0 resumes it.")},
        {"ec", ctl_ec, "ec read-row BYTE... [--data-mask=MASK]", N_("Raw EC transaction (admin)"),
         N_("Run one raw EC transaction (administrators only): BYTE i goes to register i (\"-\" skips it),\n"
            "MASK selects the bytes to read back (default 0xffff). Prints the 16 bytes read."),
         TRUE, FALSE, TRUE},
        {"diagnose", ctl_diagnose, "diagnose [--json]", N_("Report for a bug report"),
         N_("Print the diagnosis report to paste into a bug report: system facts, the backend and why,\n"
            "the EC's answers, 100 readouts, the port log of one readout, and every problem with what\n"
            "to do next (--json: the same, machine-readable). Asks tpacceld; without it, as root, runs\n"
            "tpacceld --diagnose."),
         TRUE},
        {"record", ctl_record, "record FILE [--seconds=N]", N_("Record raw readouts as a trace"),
         N_("Write every readout, from the sample stream (AcquireStream), into FILE (never overwritten)\n"
            "in the emulator's trace format: raw counts before axis correction, with the model, axis code\n"
            "and rate in comments. Stops after N seconds of readouts or at Ctrl-C; tpacceld --backend=sim\n"
            "--trace=FILE replays it."),
         FALSE, FALSE, FALSE, TRUE},
        {"alarm", ctl_alarm, "alarm [session ID] [volume PERCENT]",
         N_("Motion alarm while the session is locked"),
         N_("Sound an alarm when the machine is moved while the login session (ID, default this one) is\n"
            "locked: a warning, then after a grace a loud sound until the unlock, at PERCENT of the sound\n"
            "server's volume (default 80; the terminal bell without a sound server). Until Ctrl-C.")},
};

static const Command *command_find(const char *name)
{
        for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
                if (g_str_equal(commands[i].name, name))
                        return &commands[i];
        return NULL;
}

/* The key column: a longer key has its help on the next line, as --help's options do. */
#define KEY_COLUMN_WIDTH 19

static void print_keys(gboolean settable_only)
{
        size_t n;
        const AccelProperty *table = accel_properties(&n);

        printf("\n%s:\n", settable_only ? _("Settable keys") : _("Keys (* settable)"));
        for (size_t i = 0; i < n; i++) {
                const char *mark = !settable_only && table[i].set_method ? "* " : "  ";

                if (settable_only && !table[i].set_method)
                        continue;
                if (strlen(table[i].key) > KEY_COLUMN_WIDTH) /* keys are ASCII */
                        printf("  %s\n  %-*s%s%s\n", table[i].key, KEY_COLUMN_WIDTH, "", mark,
                               _(table[i].help));
                else
                        printf("  %-*s%s%s\n", KEY_COLUMN_WIDTH, table[i].key, mark, _(table[i].help));
        }
}

static void print_help(const Command *command)
{
        if (command) {
                printf(_("Usage: tpaccelctl [BUS OPTION] %s\n\n%s\n"), command->synopsis, _(command->help));
                if (command->run == ctl_get)
                        print_keys(FALSE);
                else if (command->run == ctl_set)
                        print_keys(TRUE);
                return;
        }

        printf(_("Usage: tpaccelctl [OPTION...] COMMAND [ARG...]\n\n"
                 "Query and control tpacceld, the ThinkPad HDAPS accelerometer service.\n\n"
                 "Commands:\n"));
        for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
                printf("  %-40s%s\n", commands[i].synopsis, _(commands[i].summary));
        printf(_("\nOptions:\n"
                 "  --system                    Talk to tpacceld on the system bus (default)\n"
                 "  --session                   Talk to the demo tpacceld on the session bus\n"
                 "  --address=ADDR              Talk to tpacceld on the bus at ADDR\n"
                 "  --json                      Machine-readable output (status, get, ec, diagnose)\n"
                 "  --samples                   Also print raw samples (monitor)\n"
                 "  --data-mask=MASK            Bytes to read back (ec read-row)\n"
                 "  --no-ask-password           Do not let polkit prompt for a password\n"
                 "  -h, --help                  Show this help, or a command's help with COMMAND --help\n"
                 "  --version                   Show the version\n\n"
                 "Exit status: 0 success, 1 failure, 2 usage error, 3 permission denied, 4 service not\n"
                 "running, 5 invalid value, 6 no accelerometer or not supported. See tpaccelctl(1).\n"));
        printf(_("\nRecording (record):\n"
                 "  --seconds=N                 Stop recording after N seconds\n"));
}

enum {
        ARG_SYSTEM = 0x100,
        ARG_SESSION,
        ARG_ADDRESS,
        ARG_JSON,
        ARG_SAMPLES,
        ARG_DATA_MASK,
        ARG_SECONDS,
        ARG_NO_ASK_PASSWORD,
        ARG_VERSION,
};

static const struct option options[] = {
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, ARG_VERSION},
        {"system", no_argument, NULL, ARG_SYSTEM},
        {"session", no_argument, NULL, ARG_SESSION},
        {"address", required_argument, NULL, ARG_ADDRESS},
        {"json", no_argument, NULL, ARG_JSON},
        {"samples", no_argument, NULL, ARG_SAMPLES},
        {"data-mask", required_argument, NULL, ARG_DATA_MASK},
        {"seconds", required_argument, NULL, ARG_SECONDS},
        {"no-ask-password", no_argument, NULL, ARG_NO_ASK_PASSWORD},
        {},
};

static void ctl_done(Ctl *ctl)
{
        ctl_polkit_agent_close(ctl);
        g_clear_object(&ctl->bus);
        g_clear_pointer(&ctl->address, g_free);
        g_clear_pointer(&ctl->bus_description, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Ctl, ctl_done)

/* "-5", "-0.5": a value (set tilt-step -5 reaches the service's range check), not options getopt would
 * refuse as "-5 is not known". */
static gboolean is_negative_number(const char *arg)
{
        return arg[0] == '-' && (g_ascii_isdigit(arg[1]) || (arg[1] == '.' && g_ascii_isdigit(arg[2])));
}

/* What the options say beyond ctl: checked against the command once it is known. */
typedef struct CommandLine {
        gboolean help, bus_chosen, data_mask_given, seconds_given;
        gboolean version_shown; /* --version answered: nothing more to do */
} CommandLine;

/* Negative numbers go through getopt masked as " -5", a non-option it keeps in order, and are restored
 * after it. */
typedef struct NegativeNumbers {
        char **originals; /* the arguments as given, in the order of masks */
        GPtrArray *masks; /* the masked copies in argv (owned) */
} NegativeNumbers;

static void negative_numbers_mask(NegativeNumbers *n, int argc, char *argv[])
{
        for (int i = 1; i < argc; i++)
                if (is_negative_number(argv[i])) {
                        n->originals[n->masks->len] = argv[i];
                        argv[i] = g_strconcat(" ", argv[i], NULL);
                        g_ptr_array_add(n->masks, argv[i]);
                }
}

static void negative_numbers_restore(const NegativeNumbers *n, int first, int argc, char *argv[])
{
        for (int i = first; i < argc; i++)
                for (guint m = 0; m < n->masks->len; m++)
                        if (argv[i] == g_ptr_array_index(n->masks, m))
                                argv[i] = n->originals[m];
}

/* One option c (getopt_long()'s answer, optarg its value) into ctl and cl. Returns EXIT_STATUS_OK, or a
 * usage error, printed. */
static ExitStatus parse_option(Ctl *ctl, CommandLine *cl, int c, char *argv[])
{
        switch (c) {
        case 'h':
                cl->help = TRUE;
                break;
        case ARG_VERSION:
                printf("tpaccelctl %s\n", PACKAGE_VERSION);
                cl->version_shown = TRUE;
                break;
        case ARG_SYSTEM:
        case ARG_SESSION:
        case ARG_ADDRESS:
                if (cl->bus_chosen)
                        return ctl_usage_error(_("choose one of --system, --session, --address"));
                cl->bus_chosen = TRUE;
                ctl->target = c == ARG_SYSTEM    ? BUS_TARGET_SYSTEM
                              : c == ARG_SESSION ? BUS_TARGET_SESSION
                                                 : BUS_TARGET_ADDRESS;
                if (c == ARG_ADDRESS) {
                        if (!g_dbus_is_supported_address(optarg, NULL))
                                return ctl_usage_error(_("--address: \"%s\" is not a D-Bus address "
                                                         "(like unix:path=/run/dbus/system_bus_socket)"),
                                                       optarg);
                        ctl->address = g_strdup(optarg);
                }
                break;
        case ARG_JSON:
                ctl->json = TRUE;
                break;
        case ARG_SAMPLES:
                ctl->samples = TRUE;
                break;
        case ARG_DATA_MASK: {
                guint64 mask;
                const char *digits = g_str_has_prefix(optarg, "0x") ? optarg + 2 : optarg;
                if (!g_ascii_string_to_unsigned(digits, 16, 0, G_MAXUINT16, &mask, NULL))
                        return ctl_usage_error(_("--data-mask: \"%s\" is not a 16-bit hex mask"), optarg);
                ctl->data_mask = (guint16) mask;
                cl->data_mask_given = TRUE;
                break;
        }
        case ARG_SECONDS: {
                guint64 seconds;
                if (!g_ascii_string_to_unsigned(optarg, 10, 1, G_MAXUINT32, &seconds, NULL))
                        return ctl_usage_error(
                                _("--seconds: \"%s\" is not a whole number of seconds (1 or more)"), optarg);
                ctl->seconds = (guint) seconds;
                cl->seconds_given = TRUE;
                break;
        }
        case ARG_NO_ASK_PASSWORD:
                ctl->ask_password = FALSE;
                break;
        case '?':
                if (optopt)
                        return ctl_usage_error(_("option -%c is not known"), optopt);
                return ctl_usage_error(_("option \"%s\" is not known or misses its argument"),
                                       argv[optind - 1]);
        default:
                g_assert_not_reached();
        }
        return EXIT_STATUS_OK;
}

/* Every option, up to the first argument (optind after). Returns EXIT_STATUS_OK (with
 * cl->version_shown when --version has answered, at once, as the first thing it met that ends the
 * run), or a usage error, printed. */
static ExitStatus parse_options(Ctl *ctl, CommandLine *cl, int argc, char *argv[])
{
        int c;

        opterr = 0;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
                ExitStatus status = parse_option(ctl, cl, c, argv);
                if (status != EXIT_STATUS_OK || cl->version_shown)
                        return status;
        }
        return EXIT_STATUS_OK;
}

/* "tpaccelctl help [COMMAND]": the help, or a command's. */
static ExitStatus run_help_command(char **args, int n_args)
{
        const Command *command = n_args > 0 ? command_find(args[0]) : NULL;

        if (n_args > 0 && !command)
                return ctl_usage_error(_("unknown command \"%s\""), args[0]);
        print_help(command);
        return EXIT_STATUS_OK;
}

/* An option given to a command it does not apply to is a usage error (printed). */
static ExitStatus check_options_apply(const Ctl *ctl, const CommandLine *cl, const Command *command)
{
        if (ctl->json && !command->json)
                return ctl_usage_error(_("--json does not apply to %s"), command->name);
        if (ctl->samples && !command->samples)
                return ctl_usage_error(_("--samples does not apply to %s"), command->name);
        if (cl->data_mask_given && !command->data_mask)
                return ctl_usage_error(_("--data-mask does not apply to %s"), command->name);
        if (cl->seconds_given && !command->seconds)
                return ctl_usage_error(_("--seconds does not apply to %s"), command->name);
        return EXIT_STATUS_OK;
}

int main(int argc, char *argv[])
{
        g_auto(Ctl)
                ctl = {.target = BUS_TARGET_SYSTEM, .ask_password = TRUE, .data_mask = DEFAULT_DATA_MASK};
        CommandLine cl = {};
        g_autofree char **originals = g_new0(char *, argc);
        g_autoptr(GPtrArray) masks = g_ptr_array_new_with_free_func(g_free);
        NegativeNumbers negatives = {.originals = originals, .masks = masks};
        const Command *command;
        ExitStatus status;

        client_i18n_init();
        setvbuf(stdout, NULL, _IOLBF, 0);
        /* A reader that went away (| head) shows as EPIPE, which the output loops take as their end. */
        (void) signal(SIGPIPE, SIG_IGN);

        negative_numbers_mask(&negatives, argc, argv);
        status = parse_options(&ctl, &cl, argc, argv);
        if (status != EXIT_STATUS_OK || cl.version_shown)
                return status;
        negative_numbers_restore(&negatives, optind, argc, argv);
        ctl.bus_description = accel_bus_describe(ctl.target, ctl.address);

        if (optind >= argc) {
                if (cl.help) {
                        print_help(NULL);
                        return EXIT_STATUS_OK;
                }
                return ctl_usage_error(_("no command given"));
        }
        if (g_str_equal(argv[optind], "help"))
                return run_help_command(argv + optind + 1, argc - optind - 1);
        command = command_find(argv[optind]);
        if (!command)
                return ctl_usage_error(_("unknown command \"%s\""), argv[optind]);
        if (cl.help) {
                print_help(command);
                return EXIT_STATUS_OK;
        }
        status = check_options_apply(&ctl, &cl, command);
        if (status != EXIT_STATUS_OK)
                return status;
        return command->run(&ctl, argv + optind + 1, argc - optind - 1);
}
