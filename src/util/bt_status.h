/* bt_status — the project's one status enum and the error record that carries
 * a human-readable cause across module boundaries.
 *
 * Contract: functions return BT_OK (0) on success or a negative bt_status;
 * when they fail and were given a non-NULL `struct bt_error *`, they fill it
 * with a one-line message (no trailing newline). Objects are unchanged on
 * error unless the function says otherwise. */
#ifndef BT_STATUS_H
#define BT_STATUS_H

#include <stddef.h>

#define BT_MUST_CHECK __attribute__((warn_unused_result))
#define BT_PRINTF(a, b) __attribute__((format(printf, a, b)))

typedef enum bt_status {
	BT_OK = 0,
	BT_ERR_IO = -1,       /* an OS or sqlite I/O failure */
	BT_ERR_NOMEM = -2,    /* allocation failed */
	BT_ERR_FORMAT = -3,   /* input is not what it claims to be */
	BT_ERR_USAGE = -4,    /* caller passed a bad argument / option */
	BT_ERR_EXISTS = -5,   /* refusing to overwrite */
	BT_ERR_NOTFOUND = -6, /* missing file, key or topic */
	BT_ERR_FULL = -7,     /* disk full or file size limit reached */
	BT_ERR_TOOBIG = -8,   /* a single item exceeds a hard limit */
	BT_ERR_STATE = -9,    /* call not valid in the object's state */
	BT_ERR_DDS = -10      /* DDS start-up or entity failure (exit status 3) */
} bt_status;

#define BT_ERROR_MSG_MAX 512

struct bt_error {
	bt_status code;
	char msg[BT_ERROR_MSG_MAX];
};

/* Fills *err (if non-NULL) and returns `code`, so callers can write
 * `return bt_err_set(err, BT_ERR_IO, "...")`. */
bt_status bt_err_set(struct bt_error *err, bt_status code, const char *fmt, ...)
	BT_PRINTF(3, 4);

/* Prefixes the message already in *err with "<fmt>: ". Returns err->code. */
bt_status bt_err_prefix(struct bt_error *err, const char *fmt, ...) BT_PRINTF(2, 3);

/* Clears *err (if non-NULL). */
void bt_err_clear(struct bt_error *err);

/* A short constant name for a status ("I/O error", "disk full", ...). */
const char *bt_status_str(bt_status st);

#endif
