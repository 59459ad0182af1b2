/* process.c - signals and the traced COMMAND.
 *
 * Signals are blocked from the start and read from a signalfd in the loop,
 * so every way of ending leaves through the same teardown. COMMAND waits
 * on a pipe until tracing is on, so that it is traced from its first
 * instruction. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

/* A script that starts nopctl with '&' gets SIGINT and SIGQUIT ignored
 * (POSIX shells do that to background jobs), and an ignored signal is
 * discarded even while blocked: 'kill -INT' would never stop the run. So
 * INT, QUIT and TERM are always taken; an ignored SIGHUP is left ignored,
 * as nohup asked. */
int signals_block(sigset_t *set)
{
	struct sigaction old;
	static const int always[] = { SIGINT, SIGQUIT, SIGTERM, SIGCHLD };
	/* every other signal whose default ends the process without a core
	 * dump of a fault: taken too, so that it ends the run through the
	 * restore; left ignored where it was ignored */
	static const int unless_ignored[] = { SIGHUP,  SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM,
					      SIGPROF, SIGXCPU, SIGXFSZ, SIGIO,	  SIGSTKFLT };

	sigemptyset(set);
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
		signal(always[i], SIG_DFL);
		sigaddset(set, always[i]);
	}
	for (size_t i = 0; i < sizeof(unless_ignored) / sizeof(unless_ignored[0]); i++)
		if (sigaction(unless_ignored[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaddset(set, unless_ignored[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaddset(set, sig);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, set, NULL) < 0)
		return -1;
	return signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
}

int fd_limit_for_cpus(struct nop_error *err)
{
	const struct nop_cpuset *on = nop_online_cpus();
	struct rlimit rl;
	rlim_t need = 64; /* stdio, the journal, locks, tracefs files, pipes */

	for (int cpu = 0; cpu < nop_ncpus(); cpu++)
		if (!on || nop_cpuset_has(on, cpu))
			need += 2;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max < need || setrlimit(RLIMIT_NOFILE, &(struct rlimit){ rl.rlim_max, rl.rlim_max }) < 0) {
		nop_error_set(err, NOP_EINTERNAL, EMFILE,
			      "nopctl needs %llu open files for this machine's CPUs, and the limit"
			      " is %llu (hard %llu): raise it (ulimit -n %llu) and run again",
			      (unsigned long long)need, (unsigned long long)rl.rlim_cur,
			      (unsigned long long)rl.rlim_max, (unsigned long long)need);
		return -1;
	}
	return 0;
}

/* How often the tasks ran: the sum of their voluntary and involuntary
 * context switches (/proc/PID/status), or -1 if one is gone. */
long long task_switches(const pid_t *pids, size_t n)
{
	long long sum = 0;

	for (size_t i = 0; i < n; i++) {
		char path[64], line[256];
		long long v;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/status", (int)pids[i]);
		if (!(f = fopen(path, "re")))
			return -1;
		while (fgets(line, sizeof(line), f))
			if ((sscanf(line, "voluntary_ctxt_switches: %lld", &v) == 1 ||
			     sscanf(line, "nonvoluntary_ctxt_switches: %lld", &v) == 1))
				sum += v;
		fclose(f);
	}
	return sum;
}

/* The child waits on a pipe until tracing is on, so that it is traced
 * from its first instruction; exec errors come back on a second pipe. */
int as_user_lookup(const char *user, struct as_user *as, struct nop_error *err)
{
	struct passwd *pw = getpwnam(user);
	char *end;
	unsigned long uid = strtoul(user, &end, 10);

	if (!pw && *user && !*end && uid <= 0xfffffffful)
		pw = getpwuid((uid_t)uid);
	if (!pw) {
		nop_error_set(err, NOP_EUSAGE, 0, "-u %s: no such user (give a name from"
			      " /etc/passwd or a uid)", user);
		return -1;
	}
	as->uid = pw->pw_uid;
	as->gid = pw->pw_gid;
	snprintf(as->name, sizeof(as->name), "%s", pw->pw_name);
	snprintf(as->home, sizeof(as->home), "%s", pw->pw_dir ? pw->pw_dir : "/");
	/* its groups now, not in the child: a lookup there (NSS: /etc/group
	 * and more) would run while tracing is on, as the command's calls */
	as->ngroups = (int)(sizeof(as->groups) / sizeof(*as->groups));
	if (getgrouplist(as->name, as->gid, as->groups, &as->ngroups) < 0) {
		nop_error_set(err, NOP_EUSAGE, 0, "-u %s: the user is in more than %zu groups", user,
			      sizeof(as->groups) / sizeof(*as->groups));
		return -1;
	}
	return 0;
}

/* In the child: the user's groups, gid and uid (in that order: once the
 * uid is given up, the rest cannot be), and its HOME, USER and LOGNAME;
 * system calls only, nothing looked up. */
static int become(const struct as_user *as)
{
	if (setgroups((size_t)as->ngroups, as->groups) < 0 || setgid(as->gid) < 0 ||
	    setuid(as->uid) < 0)
		return -1;
	setenv("HOME", as->home, 1);
	setenv("USER", as->name, 1);
	setenv("LOGNAME", as->name, 1);
	return 0;
}

pid_t spawn(char **argv, const struct as_user *as, int *go_fd, int *err_fd)
{
	int go[2], ef[2];
	sigset_t none;
	pid_t pid, parent;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(ef, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	parent = getpid();
	pid = fork();
	if (pid == 0) {
		char c;
		int e;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		close(go[1]);
		close(ef[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* nopctl gave up before tracing started */
		/* nopctl killed (-9 too) ends the command as well: nothing would
		 * read its calls any more. Set after become(): a change of
		 * credentials clears it; a parent gone already ends it here */
		if ((!as || become(as) == 0) && prctl(PR_SET_PDEATHSIG, SIGTERM) == 0 &&
		    getppid() == parent)
			execvp(argv[0], argv);
		e = errno;
		if (write(ef[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ef[1]);
	if (pid < 0) {
		close(go[1]);
		close(ef[0]);
		return -1;
	}
	*go_fd = go[1];
	*err_fd = ef[0];
	return pid;
}

void handle_signals(struct run *r)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			siginfo_t ci = { 0 };

			/* seen, not reaped: the exited command stays a zombie
			 * until the last events are printed, so its task name is
			 * still in /proc/PID/comm for them (reap_child) */
			if (r->child > 0 && !r->child_exited &&
			    waitid(P_PID, (id_t)r->child, &ci, WEXITED | WNOHANG | WNOWAIT) == 0 &&
			    ci.si_pid == r->child) {
				r->child_status = ci.si_code == CLD_EXITED ? ci.si_status : 128 + ci.si_status;
				r->child_exited = true;
				nop_pipeline_stop(r->pipe, NOP_STOP_COMMAND, 0);
			}
			continue;
		}
		if (si.ssi_signo == SIGUSR1 && r->o->catching) { /* catch: the trees open now */
			nop_pipeline_catch_now(r->pipe);
			r->snap_asked = r->gated && !nop_gated_following(r->gated); /* gated: in a snapshot taken now */
			continue;
		}
		nop_pipeline_stop(r->pipe, NOP_STOP_SIGNAL, (int)si.ssi_signo);
		/* a key on the terminal (SI_KERNEL) reached the command already:
		 * its foreground group holds it; sent twice it would count twice */
		if (r->child > 0 && !r->child_exited && si.ssi_code != SI_KERNEL)
			kill(r->child, (int)si.ssi_signo);
	}
}

void wait_child(struct run *r)
{
	struct pollfd p = { .fd = r->sigfd, .events = POLLIN };
	struct signalfd_siginfo si;
	int status;

	while (r->child > 0) {
		pid_t w = waitpid(r->child, &status, WNOHANG);

		if (w == r->child) {
			r->child_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			r->child = 0;
			return;
		}
		if (w < 0 && errno != EINTR)
			return;
		poll(&p, 1, 100); /* SIGCHLD, or a signal to pass on */
		/* a key on the terminal (SI_KERNEL) reached the command already */
		while (read(r->sigfd, &si, sizeof(si)) == sizeof(si))
			if (si.ssi_signo != SIGCHLD && si.ssi_code != SI_KERNEL)
				kill(r->child, (int)si.ssi_signo);
	}
}

void reap_child(struct run *r)
{
	int status;

	/* bounded: a command stuck in the kernel (D state) must not keep
	 * nopctl from ending; it is left to its parent's parent */
	for (int i = 0; r->child > 0 && i < 200; i++) {
		pid_t w = waitpid(r->child, &status, WNOHANG);

		if (w == r->child) {
			r->child_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			r->child = 0;
			return;
		}
		if (i == 99)
			kill(r->child, SIGKILL); /* 1 s after SIGTERM */
		if (i == 0) {
			kill(r->child, SIGTERM);
			r->child_ended = true;
		}
		usleep(10000);
	}
}

