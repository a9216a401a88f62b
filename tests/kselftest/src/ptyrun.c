/* ptyrun PROGRAM [ARGS...]: run PROGRAM with its stdout and stderr on a new pseudo-terminal
 * and copy what it writes there to our stdout, until it exits; then exit with its status.
 * SIGTERM or SIGINT to ptyrun kills PROGRAM (SIGKILL) and still copies what it wrote.
 *
 * For programs that report with printf() and never exit by themselves (tcp_mmap's server:
 * its accept loop runs until it is killed): on a terminal stdio flushes each line, in a file
 * the report would stay in the buffer and die with the process. Static, for the fast guest. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static volatile pid_t child;

static void forward(int sig)
{
	(void)sig;
	if (child > 0)
		kill(child, SIGKILL);
}

int main(int argc, char **argv)
{
	struct termios t;
	char buf[4096];
	int master, status;
	ssize_t n;

	if (argc < 2) {
		fprintf(stderr, "usage: ptyrun PROGRAM [ARGS...]\n");
		return 2;
	}
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master)) {
		perror("ptyrun: pty");
		return 126;
	}
	signal(SIGTERM, forward);
	signal(SIGINT, forward);
	child = fork();
	if (child < 0) {
		perror("ptyrun: fork");
		return 126;
	}
	if (child == 0) {
		int slave;

		setsid();
		slave = open(ptsname(master), O_RDWR);
		if (slave < 0) {
			perror("ptyrun: open the pty");
			_exit(126);
		}
		/* Raw output: no "\r\n" for "\n". */
		if (tcgetattr(slave, &t) == 0) {
			cfmakeraw(&t);
			tcsetattr(slave, TCSANOW, &t);
		}
		dup2(slave, 1);
		dup2(slave, 2);
		close(slave);
		close(master);
		execvp(argv[1], argv + 1);
		perror("ptyrun: exec");
		_exit(127);
	}
	for (;;) {
		n = read(master, buf, sizeof(buf));
		if (n > 0) {
			if (write(1, buf, n) != n)
				break;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else {
			break;	/* EIO: every copy of the terminal's slave side is closed */
		}
	}
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return 126;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
