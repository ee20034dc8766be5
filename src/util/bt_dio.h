/* bt_dio — appending to a file with direct I/O (O_DIRECT): for a file
 * written front to back and not read while written (a recorded bag file).
 *
 * Why: a buffered write copies each byte into the page cache, where the
 * kernel then keeps track of it page by page (allocation, ext4's delayed
 * allocation, write-back, and the drop bt_wbehind asks for). Measured here
 * (2026-12-06, `bagtop record -s mcap`, 1 KiB messages at 200k msgs/s, per
 * thread from /proc): ~0.6 µs of system time per message in the writer
 * thread, more than half the CPU the recorder spends beyond Cyclone's own
 * receive path. With direct I/O the device takes the bytes from our buffer:
 * one copy in user space, into an aligned staging buffer, and no page cache.
 *
 * How: what is appended is copied into a staging buffer of BT_DIO_STAGE
 * bytes that holds the file from a block-aligned offset; when it is full it
 * is written with one pwrite (which waits for the device) and starts over.
 * A caller that builds large pieces in a block-aligned buffer of its own
 * hands them over without that copy (bt_dio_write_placed): the few staged
 * bytes go in front of the piece, and the piece is written from there.
 * bt_dio_sync puts everything appended so far into the file: the staged
 * bytes, the last block padded with zeros, which the next write rewrites.
 * So until then, and for good if the process dies first, the file ends in
 * up to BT_DIO_BLOCK - 1 zero bytes after the last byte appended (a reader
 * of a file cut short takes them as its torn tail: MCAP, whose
 * specification makes opcode 0x00 invalid, as damage that its repair
 * drops). bt_dio_end writes what is staged and cuts the file to what was
 * appended.
 *
 * A disk slower than the data would hold the writer to its pace, where
 * the page cache would have taken the burst: when a write takes
 * BT_DIO_STALL_NS or more and writes have taken more than BT_DIO_BUSY of
 * the time of late (averaged over the last ~8 writes), or one write takes
 * BT_DIO_STALL_LONG_NS (a fifth of what the recorder's default 100 MiB
 * cache holds at 1 GB/s), O_DIRECT is off for BT_DIO_PAUSE_NS and the
 * page cache buffers as without it (as bt_wbehind pauses). Then a piece
 * of BT_DIO_THROUGH bytes or more is written from where it is, not
 * copied into the stage first: in that state (the disk behind the data)
 * the copy is CPU the recorder needs (a 1 MiB message then cost the writer
 * two copies, the stage's and the page cache's). The same after a refusal
 * at the first write.
 *
 * Where direct I/O is not for the file (the file system reports no direct
 * I/O alignment, or one larger than BT_DIO_BLOCK: tmpfs, most network and
 * FUSE file systems), bt_dio_start says so and changes nothing: the caller
 * writes as before. A refusal met only at the first write (EINVAL) turns
 * O_DIRECT off and writes the same bytes buffered; nothing is lost.
 *
 * Errors: functions return 0 or an errno. After a failed write the bytes in
 * the file stay as they are; bt_dio_end then cuts only the zero padding.
 * One owner per struct (the file's writer), no lock; the fd stays the
 * caller's, who keeps it open until bt_dio_end. */
#ifndef BT_DIO_H
#define BT_DIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BT_DIO_BLOCK 4096u       /* offsets, lengths and the buffer: aligned to this */
#define BT_DIO_STAGE (1u << 20) /* bytes per write */
#define BT_DIO_STALL_NS 2000000    /* 2 ms */
#define BT_DIO_STALL_LONG_NS 20000000 /* 20 ms */
#define BT_DIO_PAUSE_NS 1000000000 /* 1 s */
#define BT_DIO_BUSY 0.75
#define BT_DIO_THROUGH (64u << 10) /* paused: pieces this large are not staged */

struct bt_dio {
	int fd;
	bool usable;   /* direct I/O is for this file (a refusal turns it off) */
	bool direct;   /* O_DIRECT is on now (off while paused) */
	bool force;    /* bt_dio_start's `force`: always staged */
	int64_t last_ns;         /* monotonic time of the previous write */
	int64_t paused_until_ns;
	int64_t stall_ns;        /* BT_DIO_STALL_NS; tests set 0 to see a pause */
	int64_t stall_long_ns;   /* BT_DIO_STALL_LONG_NS; tests set it too */
	double busy;             /* share of the time spent writing, averaged */
	uint64_t n_paused;       /* times it paused (for tests) */
	uint64_t n_placed;       /* placed writes from the caller's buffer (for tests) */
	uint8_t *buf;  /* BT_DIO_STAGE bytes, BT_DIO_BLOCK-aligned */
	size_t len;    /* bytes staged */
	uint64_t base; /* file offset of buf[0], block-aligned */
	uint64_t done; /* every byte appended below this is in the file */
	uint64_t end;  /* the file's end as we wrote it: zeros past `done` */
	bool failed;   /* a write failed: nothing more is written */
};

/* 0 when fd's file system takes direct I/O with alignments BT_DIO_BLOCK
 * meets (statx STATX_DIOALIGN, Linux 6.1), else EOPNOTSUPP or an errno. */
int bt_dio_supported(int fd);

/* Starts direct I/O on fd (open for writing; nothing written to it yet).
 * 0, or an errno and *d is left off (bt_dio_on false): EOPNOTSUPP when the
 * file system gives no direct I/O alignment we can meet, ENOMEM, or what
 * fcntl says. `force` stages and writes in blocks as with direct I/O but
 * leaves O_DIRECT off (for tests on any file system). */
int bt_dio_start(struct bt_dio *d, int fd, bool force);

static inline bool bt_dio_on(const struct bt_dio *d)
{
	return d->buf != NULL;
}

/* Appends n bytes. */
int bt_dio_write(struct bt_dio *d, const void *p, size_t n);

/* Whether a placed write would go to the file from the caller's buffer
 * now: direct I/O writing (not paused), or forced. Otherwise it is staged. */
static inline bool bt_dio_placing(const struct bt_dio *d)
{
	return bt_dio_on(d) && (d->direct || d->force);
}

/* The bytes staged: appended and not in the file yet, or only padded (the
 * block bt_dio_sync left staged). A placed write puts them in front. */
static inline size_t bt_dio_staged(const struct bt_dio *d)
{
	return d->len;
}

/* Appends the n bytes at buf + at without copying them into the stage,
 * for a caller that builds large pieces (an MCAP chunk) in a buffer of its
 * own: buf is BT_DIO_BLOCK-aligned and buf[0, at) is room for the staged
 * bytes, at being bt_dio_staged() with nothing appended since. Those
 * bytes are copied into the room and buf[0, at + n) goes to the file in
 * whole blocks from where it is; its last part block is staged. Where that
 * does not hold (at is not what is staged, buf is not aligned, fewer than
 * BT_DIO_THROUGH bytes, a pause) it is bt_dio_write(d, buf + at, n): the
 * file is the same either way. buf[0, at) may be overwritten. */
int bt_dio_write_placed(struct bt_dio *d, uint8_t *buf, size_t at, size_t n);

/* Everything appended so far into the file (see above: zero padded). */
int bt_dio_sync(struct bt_dio *d);

/* Writes what is staged (unless a write failed), cuts the file to what is
 * in it and turns O_DIRECT off; frees the buffer (also on error). */
int bt_dio_end(struct bt_dio *d);

#endif
