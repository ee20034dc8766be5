/* dioalign DIR — exits 0 when a file created in DIR takes direct I/O as
 * bt_dio asks for it (bt_dio_supported), 1 when not, 2 on error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_dio.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: dioalign DIR\n");
		return 2;
	}
	char path[4096];
	if (snprintf(path, sizeof path, "%s/.dioalign.XXXXXX", argv[1]) >= (int)sizeof path)
		return 2;
	int fd = mkstemp(path);
	if (fd < 0) {
		perror("dioalign: mkstemp");
		return 2;
	}
	int e = bt_dio_supported(fd);
	close(fd);
	unlink(path);
	if (e != 0)
		printf("dioalign: %s: %s\n", argv[1], strerror(e));
	return e == 0 ? 0 : 1;
}
