#include "tui_stderr.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

bt_status tui_stderr_start(struct tui_stderr *c, struct bt_error *err)
{
	c->saved_fd = -1;
	c->tmp = tmpfile();
	if (!c->tmp)
		return bt_err_set(err, BT_ERR_IO, "stderr capture: %s", strerror(errno));
	fflush(stderr);
	c->saved_fd = dup(STDERR_FILENO);
	if (c->saved_fd < 0)
		goto err_dup;
	if (dup2(fileno(c->tmp), STDERR_FILENO) < 0)
		goto err_dup2;
	return BT_OK;
err_dup2:
	close(c->saved_fd);
	c->saved_fd = -1;
err_dup:
	fclose(c->tmp);
	c->tmp = NULL;
	return bt_err_set(err, BT_ERR_IO, "stderr capture: %s", strerror(errno));
}

size_t tui_stderr_stop(struct tui_stderr *c)
{
	if (c->saved_fd < 0)
		return 0;
	fflush(stderr);
	int restored = dup2(c->saved_fd, STDERR_FILENO);
	close(c->saved_fd);
	c->saved_fd = -1;
	size_t total = 0;
	char buf[4096];
	ssize_t n;
	/* The fd shares its offset with c->tmp's; read from the start. */
	if (restored >= 0 && lseek(fileno(c->tmp), 0, SEEK_SET) == 0)
		while ((n = read(fileno(c->tmp), buf, sizeof buf)) > 0) {
			if (write(STDERR_FILENO, buf, (size_t)n) != n)
				break;
			total += (size_t)n;
		}
	fclose(c->tmp);
	c->tmp = NULL;
	return total;
}
