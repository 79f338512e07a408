/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccelctl's polkit agent: pkttyagent on the terminal, started the way systemctl starts it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"

/* How long pkttyagent may take to register with polkit before the call goes ahead without it. */
#define AGENT_READY_TIMEOUT_MS 10000

void ctl_polkit_agent_open(Ctl *ctl, const char *action)
{
        g_autofree char *agent = NULL;
        g_autofree char *pid_arg = NULL;
        g_autofree char *fd_arg = NULL;
        struct pollfd ready;
        int fds[2];
        pid_t pid;

        ctl->polkit_action = action;
        ctl->polkit_agent_ran = FALSE;
        /* root needs no password; without a terminal there is nobody to ask. */
        if (ctl->polkit_agent > 0 || !ctl->ask_password || geteuid() == 0 || !isatty(STDIN_FILENO))
                return;
        agent = g_find_program_in_path("pkttyagent");
        if (!agent)
                return;
        if (pipe2(fds, O_CLOEXEC) < 0)
                return;

        /* Everything the child needs is prepared before fork(): it only execs. */
        pid_arg = g_strdup_printf("%d", (int) getpid());
        fd_arg = g_strdup_printf("%d", fds[1]);
        char *argv[] = {agent, "--process", pid_arg, "--notify-fd", fd_arg, "--fallback", NULL};

        pid = fork();
        if (pid < 0) {
                close(fds[0]);
                close(fds[1]);
                return;
        }
        if (pid == 0) {
                /* The notify pipe stays open across exec; the read end does not. */
                if (fcntl(fds[1], F_SETFD, 0) < 0)
                        _exit(EXIT_FAILURE);
                execv(agent, argv);
                _exit(EXIT_FAILURE);
        }
        close(fds[1]);
        ctl->polkit_agent = pid;
        ctl->polkit_agent_ran = TRUE;

        /* pkttyagent writes to (or closes) the pipe once it is registered with polkit. */
        ready = (struct pollfd) {.fd = fds[0], .events = POLLIN};
        while (poll(&ready, 1, AGENT_READY_TIMEOUT_MS) < 0 && errno == EINTR)
                ;
        close(fds[0]);
}

void ctl_polkit_agent_close(Ctl *ctl)
{
        if (ctl->polkit_agent <= 0)
                return;
        (void) kill(ctl->polkit_agent, SIGTERM);
        while (waitpid(ctl->polkit_agent, NULL, 0) < 0 && errno == EINTR)
                ;
        ctl->polkit_agent = 0;
}
