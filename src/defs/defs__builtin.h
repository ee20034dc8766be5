/* defs__builtin — the table generated from interfaces/ (cmake/DefsBuiltin.cmake). */
#ifndef DEFS__BUILTIN_H
#define DEFS__BUILTIN_H

#include <stddef.h>

struct defs_builtin_file {
	const char *path; /* "std_msgs/msg/Header.msg" */
	unsigned mask;    /* bit i: defs_builtin_distros[i] has this text */
	const char *text;
};

extern const char *const defs_builtin_distros_tab[];
extern const struct defs_builtin_file defs_builtin_files[];
extern const size_t defs_builtin_n_files;

#endif
