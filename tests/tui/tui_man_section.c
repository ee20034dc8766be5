/* Prints the man page's INTERACTIVE COMMANDS sections generated from the
 * key tables (tui_keys_man): record's, then play's, for man/bagtop.1. Not
 * a test. */
#include <stdio.h>

#include "tui_keys.h"

int main(void)
{
	return tui_keys_man(TUI_MODE_RECORD, stdout) == 0 && tui_keys_man(TUI_MODE_PLAY, stdout) == 0 &&
		       fflush(stdout) == 0
		   ? 0
		   : 1;
}
