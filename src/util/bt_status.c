#include "bt_status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bt_status bt_err_set(struct bt_error *err, bt_status code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}

bt_status bt_err_prefix(struct bt_error *err, const char *fmt, ...)
{
	if (!err)
		return BT_ERR_IO;
	char head[BT_ERROR_MSG_MAX];
	char old[BT_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	snprintf(err->msg, sizeof err->msg, "%s: %s", head, old);
	return err->code;
}

void bt_err_clear(struct bt_error *err)
{
	if (err) {
		err->code = BT_OK;
		err->msg[0] = '\0';
	}
}

const char *bt_status_str(bt_status st)
{
	switch (st) {
	case BT_OK: return "ok";
	case BT_ERR_IO: return "I/O error";
	case BT_ERR_NOMEM: return "out of memory";
	case BT_ERR_FORMAT: return "bad format";
	case BT_ERR_USAGE: return "usage error";
	case BT_ERR_EXISTS: return "already exists";
	case BT_ERR_NOTFOUND: return "not found";
	case BT_ERR_FULL: return "disk full";
	case BT_ERR_TOOBIG: return "too big";
	case BT_ERR_STATE: return "invalid state";
	case BT_ERR_DDS: return "DDS error";
	}
	return "unknown error";
}
