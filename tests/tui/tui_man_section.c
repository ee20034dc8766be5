/* Prints the man page's INTERACTIVE COMMANDS section generated from the
 * key table (tui_keys_man), for man/bagtop.1. Not a test. */
#include <stdio.h>

#include "tui_keys.h"

int main(void)
{
	return tui_keys_man(stdout) == 0 && fflush(stdout) == 0 ? 0 : 1;
}
