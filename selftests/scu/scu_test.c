// SPDX-License-Identifier: MIT
/*
 * scu_test: the SCU slot char devices of scenic_scu.ko (docs/scu.md 4) from a
 * user's side. Usage: scu_test CARD_DIR IMAGE_DIR (e.g. /dev/scenic0
 * scu-images; images by mkimages.py). Output is TAP through the kernel's
 * kselftest.h, one line per check (the checks share the slots and the loaded
 * SCU, in order: kselftest.h rather than independent harness tests); exit 0
 * only if every check passed or was skipped, 2 when an image cannot be read.
 *
 * INFO on every slot; exclusive open, EPERM on slot 0; an observer cannot
 * load (EBADF); a good image loads and unloads and INFO shows it; every bad
 * image is refused with its status and errno while the old SCU keeps running;
 * hostile ioctl structs; the sysfs files agree with INFO; CSR ioctl and
 * mapping, status page, COUNTERS, interrupts (eventfd, poll, read) when the
 * card has them; steering rules (add, delete, sysfs, refusals without
 * CAP_NET_ADMIN, bad rules, a full table, a frame of the card's netdev counted
 * by the slot, the rules gone with an unload); owner hand-offs; after a reset
 * of the card, the old fd fails with ENODEV, its mapping is zapped and the slot
 * comes back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/ethtool.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scenic_scu.h"
#include "kselftest.h"

#ifndef __printf
#define __printf(a, b) __attribute__((format(printf, a, b)))
#endif

static const char *card_dir, *img_dir;
static unsigned int card_no;

/* One result through ksft_test_result() (which takes no va_list: the name is formatted here). */
static void __printf(2, 3) check(int ok, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	ksft_test_result(ok, "%s\n", name);
	fflush(stdout);
}

/* A check the card cannot take: "ok N # SKIP what: why". */
static void __printf(1, 2) skip(const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	ksft_test_result_skip("%s\n", name);
	fflush(stdout);
}

/* The plan (the checks run) and kselftest's totals, then the exit: 0 only if none failed. */
static void finish(void)
{
	ksft_set_plan(ksft_test_num());
	fflush(stdout);
	ksft_finished();
}

static int open_slot(unsigned int slot, int flags)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/scu%u", card_dir, slot);
	return open(path, flags | O_CLOEXEC);
}

/* errno of an ioctl, 0 on success */
static int xioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? errno : 0;
}

static int info(int fd, struct scenic_scu_info *i)
{
	memset(i, 0, sizeof(*i));
	i->size = sizeof(*i);
	return xioctl(fd, SCENIC_SCU_IOC_INFO, i);
}

struct image {
	unsigned char *data;
	size_t len;
};

static struct image read_image(const char *name)
{
	struct image im = { NULL, 0 };
	char path[512];
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", img_dir, name);
	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, "scu_test: cannot read %s: %s\n", path, strerror(errno));
		exit(2);
	}
	im.len = st.st_size;
	im.data = malloc(im.len ? im.len : 1);
	if (!im.data || fread(im.data, 1, im.len, f) != im.len) {
		fprintf(stderr, "scu_test: cannot read %s\n", path);
		exit(2);
	}
	fclose(f);
	return im;
}

static int load(int fd, const struct image *im, uint32_t flags,
		struct scenic_scu_load *ld)
{
	memset(ld, 0, sizeof(*ld));
	ld->size = sizeof(*ld);
	ld->image_ptr = (uintptr_t)im->data;
	ld->image_len = im->len;
	ld->flags = flags;
	return xioctl(fd, SCENIC_SCU_IOC_LOAD, ld);
}

static int unload(int fd, struct scenic_scu_load *ld)
{
	memset(ld, 0, sizeof(*ld));
	ld->size = sizeof(*ld);
	return xioctl(fd, SCENIC_SCU_IOC_UNLOAD, ld);
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* One line of the slot's sysfs file, without the newline; "" if unreadable. */
static const char *sysfs(unsigned int slot, const char *attr)
{
	static char buf[256];
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/scenic_scu/scenic%u!scu%u/%s",
		 card_no, slot, attr);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return buf;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static void hex(char *out, const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static unsigned int count_slots(void)
{
	unsigned int n = 0;
	char path[256];

	while (n < 64) {
		snprintf(path, sizeof(path), "%s/scu%u", card_dir, n);
		if (access(path, F_OK))
			break;
		n++;
	}
	return n;
}

/* INFO on every slot, from an observer. */
static void test_info_all(unsigned int nslots)
{
	struct scenic_scu_info i;
	unsigned int s;
	int fd, err;

	for (s = 0; s < nslots; s++) {
		fd = open_slot(s, O_RDONLY);
		if (fd < 0) {
			check(0, "slot %u: O_RDONLY open (%s)", s, strerror(errno));
			continue;
		}
		err = info(fd, &i);
		check(!err && i.card == card_no && i.slot == s && i.num_slots == nslots &&
		      i.state == SCENIC_SCU_STATE_RUNNING && i.iface_version >> 16 == 1 &&
		      !!(i.flags & SCENIC_SCU_INFO_FIXED) == (s == 0) &&
		      !(i.flags & SCENIC_SCU_INFO_OWNER_IS_ME) &&
		      i.reconfig_delay_us > 0,
		      "slot %u: INFO (err %d): card %u slot %u of %u, state %u, kind %u, name '%.32s', flags 0x%x, iface 0x%x",
		      s, err, i.card, i.slot, i.num_slots, i.state, i.kind, i.name, i.flags,
		      i.iface_version);
		close(fd);
	}
}

static void test_open_rules(void)
{
	struct scenic_scu_info i;
	char got[256];
	int a, b, r, err;

	a = open_slot(0, O_RDWR);
	check(a < 0 && errno == EPERM, "slot 0: O_RDWR refused with EPERM (got %s)",
	      a < 0 ? strerror(errno) : "success");
	if (a >= 0)
		close(a);
	a = open_slot(1, O_RDWR);
	check(a >= 0, "slot 1: O_RDWR open makes the owner");
	b = open_slot(1, O_RDWR);
	check(b < 0 && errno == EBUSY, "slot 1: a second O_RDWR gets EBUSY (got %s)",
	      b < 0 ? strerror(errno) : "success");
	if (b >= 0)
		close(b);
	r = open_slot(1, O_RDONLY);
	check(r >= 0, "slot 1: an observer opens O_RDONLY beside the owner");
	/* arguments are evaluated in any order: query first, then check */
	err = info(a, &i);
	check(!err && (i.flags & SCENIC_SCU_INFO_OWNED) &&
	      (i.flags & SCENIC_SCU_INFO_OWNER_IS_ME),
	      "owner's INFO: OWNED and OWNER_IS_ME (flags 0x%x)", i.flags);
	err = info(r, &i);
	check(!err && (i.flags & SCENIC_SCU_INFO_OWNED) &&
	      !(i.flags & SCENIC_SCU_INFO_OWNER_IS_ME),
	      "observer's INFO: OWNED, not OWNER_IS_ME (flags 0x%x)", i.flags);
	snprintf(got, sizeof(got), "%s", sysfs(1, "owned"));
	check(!strcmp(got, "1"), "sysfs owned = 1 while owned (got '%s')", got);
	close(a);
	snprintf(got, sizeof(got), "%s", sysfs(1, "owned"));
	check(!strcmp(got, "0"), "sysfs owned = 0 after the owner closed (got '%s')", got);
	a = open_slot(1, O_RDWR);
	check(a >= 0, "slot 1: O_RDWR works again after the owner closed");
	if (a >= 0)
		close(a);
	if (r >= 0)
		close(r);
}

static void test_observer(const struct image *good)
{
	struct scenic_scu_load ld;
	struct scenic_scu_csr csr = { .size = sizeof(csr) };
	int r = open_slot(1, O_RDONLY), err;

	err = load(r, good, 0, &ld);
	check(err == EBADF, "observer LOAD refused with EBADF (got %s)", strerror(err));
	err = unload(r, &ld);
	check(err == EBADF, "observer UNLOAD refused with EBADF (got %s)", strerror(err));
	err = xioctl(r, SCENIC_SCU_IOC_CSR, &csr);
	check(err == EBADF, "observer CSR refused with EBADF (got %s)", strerror(err));
	close(r);
}

/* 1 if a line of `devlink dev info` (the card's running versions) contains @s. */
static int devlink_has(const char *s)
{
	char line[512];
	int found = 0;
	FILE *p;

	p = popen("/usr/sbin/devlink dev info 2>&1", "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (strstr(line, s))
			found = 1;
	pclose(p);
	return found;
}

/* The slot runs the image's SCU: name, build id and hash as its header says. */
static int runs_image(int fd, const struct image *im, struct scenic_scu_info *i)
{
	if (info(fd, i) || i->state != SCENIC_SCU_STATE_RUNNING)
		return 0;
	return !strncmp(i->name, (const char *)im->data + 0x20, SCENIC_SCU_NAME_LEN) &&
	       i->build_id == le64(im->data + 0x18) &&
	       !memcmp(i->image_sha256, im->data + 0x70, SCENIC_SCU_SHA256_LEN) &&
	       i->kind == 1;
}

static void test_load(int fd, const struct image *good, const struct image *good2)
{
	struct scenic_scu_info before, i;
	struct scenic_scu_load ld;
	char want[80], path[64], got[256];
	uint64_t loads;
	int err, ok;

	info(fd, &before);
	err = load(fd, good, 0, &ld);
	check(!err && ld.status == SCENIC_SCU_LOAD_OK && ld.pause_ns > 0 &&
	      ld.total_ns >= ld.pause_ns,
	      "LOAD good.scu: %s, status %u, pause %llu ns, total %llu ns", strerror(err),
	      ld.status, (unsigned long long)ld.pause_ns, (unsigned long long)ld.total_ns);
	ok = runs_image(fd, good, &i);
	check(ok && i.loads == before.loads + 1 &&
	      i.last_pause_ns == ld.pause_ns,
	      "INFO after LOAD: name '%.32s', build id %016llx, sha256 of the header, loads %llu -> %llu",
	      i.name, (unsigned long long)i.build_id, (unsigned long long)before.loads,
	      (unsigned long long)i.loads);
	hex(want, good->data + 0x70, 32);
	snprintf(got, sizeof(got), "%s", sysfs(1, "name"));
	ok = !strcmp(got, "selftest-pass") && !strcmp(sysfs(1, "image_sha256"), want) &&
	     strtoull(sysfs(1, "loads"), NULL, 10) == i.loads &&
	     !strcmp(sysfs(1, "state"), "running");
	check(ok, "sysfs: name '%s', image_sha256, loads, state agree with INFO", got);
	snprintf(path, sizeof(path), "%016llx", (unsigned long long)le64(good->data + 0x18));
	snprintf(got, sizeof(got), "%s", sysfs(1, "build_id"));
	check(!strcmp(got, path), "sysfs build_id %s (got %s)", path, got);

	snprintf(want, sizeof(want), "scu.1 selftest-pass %016llx",
		 (unsigned long long)le64(good->data + 0x18));
	ok = devlink_has(want);
	check(ok == 1, "devlink dev info shows '%s'", want);

	loads = i.loads;
	err = load(fd, good2, SCENIC_SCU_LOAD_DRY_RUN, &ld);
	ok = runs_image(fd, good, &i);
	check(!err && ld.status == 0 && ok && i.loads == loads,
	      "DRY_RUN of good2.scu: accepted (%s), slot unchanged", strerror(err));
}

struct bad_case {
	const char *file;
	uint32_t status;
	int err;
};

static void test_bad_images(int fd, const struct image *good)
{
	static const struct bad_case cases[] = {
		{ "bad_magic.scu", SCENIC_SCU_LOAD_BAD_MAGIC, ENOEXEC },
		{ "bad_format.scu", SCENIC_SCU_LOAD_BAD_FORMAT_VERSION, ENOEXEC },
		{ "bad_crc.scu", SCENIC_SCU_LOAD_BAD_HEADER, ENOEXEC },
		{ "bad_reserved.scu", SCENIC_SCU_LOAD_BAD_HEADER, ENOEXEC },
		{ "short.scu", SCENIC_SCU_LOAD_BAD_HEADER, ENOEXEC },
		{ "bad_iface.scu", SCENIC_SCU_LOAD_BAD_IFACE_VERSION, ENOEXEC },
		{ "bad_kind.scu", SCENIC_SCU_LOAD_UNKNOWN_KIND, ENOEXEC },
		{ "bad_hash.scu", SCENIC_SCU_LOAD_HASH_MISMATCH, ENOEXEC },
		{ "bad_width.scu", SCENIC_SCU_LOAD_BAD_DATA_WIDTH, ENOEXEC },
		{ "too_large.scu", SCENIC_SCU_LOAD_TOO_LARGE, EFBIG },
	};
	struct scenic_scu_info before, i;
	struct scenic_scu_load ld;
	unsigned int c;
	int err, ok;

	info(fd, &before);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct image im = read_image(cases[c].file);

		err = load(fd, &im, 0, &ld);
		ok = runs_image(fd, good, &i);
		check(err == cases[c].err && ld.status == cases[c].status &&
		      ok && i.loads == before.loads,
		      "%s refused: %s (want %s), status %u (want %u); old SCU still runs, loads %llu",
		      cases[c].file, strerror(err), strerror(cases[c].err), ld.status,
		      cases[c].status, (unsigned long long)i.loads);
		free(im.data);
	}
}

static void test_hostile(int fd, const struct image *good)
{
	struct {
		struct scenic_scu_info i;
		unsigned char tail[64];
	} big;
	struct scenic_scu_info i;
	struct scenic_scu_load ld;
	int err;

	memset(&i, 0, sizeof(i));
	i.size = 4;
	err = xioctl(fd, SCENIC_SCU_IOC_INFO, &i);
	check(err == EINVAL, "INFO with size 4: EINVAL (got %s)", strerror(err));
	memset(&i, 0, sizeof(i));
	i.size = sizeof(i);
	i.comp_mask = 1;
	err = xioctl(fd, SCENIC_SCU_IOC_INFO, &i);
	check(err == EINVAL, "INFO with an unknown comp_mask bit: EINVAL (got %s)", strerror(err));
	memset(&big, 0, sizeof(big));
	big.i.size = sizeof(big);
	err = xioctl(fd, SCENIC_SCU_IOC_INFO, &big);
	check(!err && big.i.size == sizeof(big) && big.i.num_slots > 0 &&
	      !memchr(big.tail, 1, sizeof(big.tail)),
	      "INFO with a larger struct and a zero tail: works, tail untouched (%s)",
	      strerror(err));
	memset(&big, 0, sizeof(big));
	big.i.size = sizeof(big);
	big.tail[10] = 1;
	err = xioctl(fd, SCENIC_SCU_IOC_INFO, &big);
	check(err == E2BIG, "INFO with a non-zero byte beyond the known struct: E2BIG (got %s)",
	      strerror(err));

	load(fd, good, 0, &ld);
	ld.size = 8;
	err = xioctl(fd, SCENIC_SCU_IOC_LOAD, &ld);
	check(err == EINVAL, "LOAD with size 8: EINVAL (got %s)", strerror(err));
	load(fd, good, 0, &ld);	/* same image again: fine */
	memset(&ld, 0, sizeof(ld));
	ld.size = sizeof(ld);
	ld.image_ptr = (uintptr_t)good->data;
	ld.image_len = good->len;
	ld.reserved_120[1] = 1;
	err = xioctl(fd, SCENIC_SCU_IOC_LOAD, &ld);
	check(err == EINVAL, "LOAD with non-zero reserved_120: EINVAL (got %s)", strerror(err));
	ld.reserved_120[1] = 0;
	ld.flags = 1u << 7;
	err = xioctl(fd, SCENIC_SCU_IOC_LOAD, &ld);
	check(err == EINVAL, "LOAD with an unknown flag: EINVAL (got %s)", strerror(err));
	ld.flags = 0;
	ld.comp_mask = 2;
	err = xioctl(fd, SCENIC_SCU_IOC_LOAD, &ld);
	check(err == EINVAL, "LOAD with an unknown comp_mask bit: EINVAL (got %s)", strerror(err));
	ld.comp_mask = 0;
	ld.image_ptr = 16;	/* unmapped */
	err = xioctl(fd, SCENIC_SCU_IOC_LOAD, &ld);
	check(err == EFAULT, "LOAD from an unmapped address: EFAULT (got %s)", strerror(err));
	memset(&ld, 0, sizeof(ld));
	ld.size = sizeof(ld);
	ld.image_len = good->len;
	err = xioctl(fd, SCENIC_SCU_IOC_UNLOAD, &ld);
	check(err == EINVAL, "UNLOAD with image fields: EINVAL (got %s)", strerror(err));
	err = xioctl(fd, _IO(SCENIC_SCU_IOC_TYPE, 0x3f), &ld);
	check(err == ENOTTY, "unknown ioctl: ENOTTY (got %s)", strerror(err));
	ld.size = 0;
	err = xioctl(fd, SCENIC_SCU_IOC_INFO, NULL);
	check(err == EFAULT, "INFO with a NULL pointer: EFAULT (got %s)", strerror(err));
}

static void test_unload(int fd, const struct image *good2)
{
	struct scenic_scu_info before, i;
	struct scenic_scu_load ld;
	int err, ok;

	info(fd, &before);
	err = unload(fd, &ld);
	ok = !info(fd, &i);
	check(!err && ld.status == 0 && ok && !strcmp(i.name, "passthrough") &&
	      i.build_id == 0 && i.loads == before.loads + 1,
	      "UNLOAD: %s, slot runs '%.32s' (build id %llx), loads %llu", strerror(err), i.name,
	      (unsigned long long)i.build_id, (unsigned long long)i.loads);
	err = load(fd, good2, 0, &ld);
	ok = runs_image(fd, good2, &i);
	check(!err && ok && i.loads == before.loads + 2,
	      "LOAD good2.scu after the unload: %s, runs '%.32s'", strerror(err), i.name);
	err = unload(fd, &ld);
	ok = !info(fd, &i);
	check(!err && ok && !strcmp(i.name, "passthrough"),
	      "UNLOAD again: %s, '%.32s'", strerror(err), i.name);
	ok = devlink_has("scu.1 passthrough 0000000000000000");
	check(ok == 1, "devlink dev info shows scu.1 passthrough after the unload");
}

/* The passthrough's CSRs (docs/scu.md 8). */
#define CSR_ID		0
#define CSR_SCRATCH	1
#define CSR_IRQ_RAISE	7
#define PASSTHROUGH_ID	0x5343555041535331ULL

static int csr_rw(int fd, uint32_t index, int write, uint64_t *value)
{
	struct scenic_scu_csr csr = { .size = sizeof(csr), .index = index, .write = write };
	int err;

	csr.value = write ? *value : 0;
	err = xioctl(fd, SCENIC_SCU_IOC_CSR, &csr);
	if (!err && !write)
		*value = csr.value;
	return err;
}

/* CSR ioctl and mapping; observers get neither. */
static void test_csr(int fd)
{
	volatile uint64_t *win;
	struct scenic_scu_info i;
	uint64_t v = 0;
	int err, r;
	void *p;

	info(fd, &i);
	if (!i.csr_size) {
		skip("CSR ioctl and mmap: the card has no CSR windows (csr_size 0)");
		return;
	}
	err = csr_rw(fd, CSR_ID, 0, &v);
	check(!err && v == PASSTHROUGH_ID, "CSR ioctl: ID reads %llx (%s)",
	      (unsigned long long)v, strerror(err));
	v = 0x0123456789abcdefULL;
	err = csr_rw(fd, CSR_SCRATCH, 1, &v);
	v = 0;
	if (!err)
		err = csr_rw(fd, CSR_SCRATCH, 0, &v);
	check(!err && v == 0x0123456789abcdefULL, "CSR ioctl: SCRATCH round trip (%s, %llx)",
	      strerror(err), (unsigned long long)v);
	err = csr_rw(fd, SCENIC_SCU_CSR_COUNT, 0, &v);
	check(err == EINVAL, "CSR ioctl: index 8192 refused with EINVAL (got %s)", strerror(err));

	p = mmap(NULL, SCENIC_SCU_CSR_WINDOW_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		 i.csr_mmap_offset);
	check(p == MAP_FAILED && errno == EINVAL, "CSR mmap MAP_PRIVATE: EINVAL (got %s)",
	      p == MAP_FAILED ? strerror(errno) : "success");
	if (p != MAP_FAILED)
		munmap(p, SCENIC_SCU_CSR_WINDOW_SIZE);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, i.csr_mmap_offset);
	check(p == MAP_FAILED && errno == EINVAL, "CSR mmap of 4 KiB: EINVAL (got %s)",
	      p == MAP_FAILED ? strerror(errno) : "success");
	if (p != MAP_FAILED)
		munmap(p, 4096);
	p = mmap(NULL, SCENIC_SCU_CSR_WINDOW_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 i.csr_mmap_offset);
	check(p != MAP_FAILED, "CSR window mapped by the owner (%s)",
	      p == MAP_FAILED ? strerror(errno) : "ok");
	if (p != MAP_FAILED) {
		win = p;
		v = win[CSR_ID];
		check(v == PASSTHROUGH_ID, "mapping: ID reads %llx", (unsigned long long)v);
		win[CSR_SCRATCH] = 0xfeedfacecafebeefULL;
		err = csr_rw(fd, CSR_SCRATCH, 0, &v);
		check(!err && v == 0xfeedfacecafebeefULL,
		      "mapping: a store is what the CSR ioctl reads (%llx)", (unsigned long long)v);
		munmap(p, SCENIC_SCU_CSR_WINDOW_SIZE);
	}

	r = open_slot(1, O_RDONLY);
	p = mmap(NULL, SCENIC_SCU_CSR_WINDOW_SIZE, PROT_READ, MAP_SHARED, r, i.csr_mmap_offset);
	check(p == MAP_FAILED && errno == EACCES, "observer's CSR mmap: EACCES (got %s)",
	      p == MAP_FAILED ? strerror(errno) : "success");
	if (p != MAP_FAILED)
		munmap(p, SCENIC_SCU_CSR_WINDOW_SIZE);
	close(r);
}

/* Status page and COUNTERS: any opener, read-only. */
static void test_status(int fd)
{
	struct scenic_scu_counters c;
	struct scenic_scu_info i;
	const volatile uint64_t *pg;
	int r, err;
	void *p;

	info(fd, &i);
	if (!i.status_size) {
		skip("status page and COUNTERS: the card has no status page (status_size 0)");
		return;
	}
	r = open_slot(1, O_RDONLY);
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	err = xioctl(r, SCENIC_SCU_IOC_COUNTERS, &c);
	check(!err && c.loads >= 1, "observer's COUNTERS: %s, loads %llu",
	      strerror(err), (unsigned long long)c.loads);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, r, i.status_mmap_offset);
	check(p != MAP_FAILED, "observer maps the status page read-only (%s)",
	      p == MAP_FAILED ? strerror(errno) : "ok");
	if (p != MAP_FAILED) {
		pg = p;
		check(!(pg[0] & 1) && (uint32_t)pg[1] == SCENIC_SCU_STATE_RUNNING &&
		      (uint32_t)(pg[1] >> 32) == i.kind,
		      "status page: seq %llu even, state %u, kind %u",
		      (unsigned long long)pg[0], (unsigned)(uint32_t)pg[1],
		      (unsigned)(pg[1] >> 32));
		munmap(p, 4096);
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, i.status_mmap_offset);
	check(p == MAP_FAILED && errno == EPERM, "status page mapped writable: EPERM (got %s)",
	      p == MAP_FAILED ? strerror(errno) : "success");
	if (p != MAP_FAILED)
		munmap(p, 4096);
	close(r);
}

static uint64_t efd_read(int efd)
{
	uint64_t n = 0;

	if (read(efd, &n, sizeof(n)) != sizeof(n))
		return 0;
	return n;
}

static int set_irq(int fd, unsigned int line, int efd)
{
	struct scenic_scu_irq irq = { .size = sizeof(irq), .line = line, .eventfd = efd };

	return xioctl(fd, SCENIC_SCU_IOC_SET_IRQ, &irq);
}

/* Interrupts: the passthrough's IRQ_RAISE CSR, eventfd, poll() and read(). */
static void test_irq(int fd)
{
	struct scenic_scu_irq_event ev;
	struct scenic_scu_info i;
	struct pollfd pfd;
	uint64_t v;
	int efd, r, err, n;
	ssize_t got;

	info(fd, &i);
	if (!i.irq_lines || !i.csr_size) {
		skip("interrupts: the slot has no lines or CSRs (irq_lines %u)", i.irq_lines);
		return;
	}
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	err = set_irq(fd, i.irq_lines, efd);
	check(err == EINVAL, "SET_IRQ on line %u: EINVAL (got %s)", i.irq_lines, strerror(err));
	err = set_irq(fd, 0, fd);
	check(err == EINVAL, "SET_IRQ with a non-eventfd fd: EINVAL (got %s)", strerror(err));
	err = set_irq(fd, 0, efd);
	check(!err, "SET_IRQ: eventfd on line 0 (%s)", strerror(err));

	v = 1;	/* line 0 */
	err = csr_rw(fd, CSR_IRQ_RAISE, 1, &v);
	pfd = (struct pollfd){ .fd = efd, .events = POLLIN };
	n = poll(&pfd, 1, 2000);
	check(!err && n == 1 && efd_read(efd) >= 1, "IRQ_RAISE line 0: the eventfd fires (poll %d)",
	      n);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	n = poll(&pfd, 1, 2000);
	check(n == 1 && (pfd.revents & POLLIN), "poll() on the slot fd: POLLIN (revents 0x%x)",
	      pfd.revents);
	memset(&ev, 0, sizeof(ev));
	got = read(fd, &ev, sizeof(ev));
	check(got == sizeof(ev) && ev.pending == 1 && ev.lines == i.irq_lines && ev.total >= 1,
	      "read(): pending 0x%x, lines %u, total %llu", ev.pending, ev.lines,
	      (unsigned long long)ev.total);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	got = read(fd, &ev, sizeof(ev));
	check(got < 0 && errno == EAGAIN, "read() with nothing pending, O_NONBLOCK: EAGAIN (got %s)",
	      got < 0 ? strerror(errno) : "data");
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);

	v = 4;	/* line 2: no eventfd there */
	err = csr_rw(fd, CSR_IRQ_RAISE, 1, &v);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	n = poll(&pfd, 1, 2000);
	memset(&ev, 0, sizeof(ev));
	got = n == 1 ? read(fd, &ev, sizeof(ev)) : -1;
	check(!err && got == sizeof(ev) && ev.pending == 4 && efd_read(efd) == 0,
	      "line 2: read() says 0x%x, line 0's eventfd stays quiet", ev.pending);

	r = open_slot(1, O_RDONLY);
	got = read(r, &ev, sizeof(ev));
	check(got < 0 && errno == EPERM, "observer's read(): EPERM (got %s)",
	      got < 0 ? strerror(errno) : "data");
	close(r);

	err = set_irq(fd, 0, -1);
	v = 1;
	if (!err)
		err = csr_rw(fd, CSR_IRQ_RAISE, 1, &v);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	poll(&pfd, 1, 2000);
	got = read(fd, &ev, sizeof(ev));
	check(!err && efd_read(efd) == 0, "after SET_IRQ -1 the eventfd is detached (%s)",
	      strerror(err));
	close(efd);
}

/*
 * Ownership hand-offs: the same euid keeps the SCU's state, another euid gets
 * the SCU reset before its open returns (docs/scu.md 5, persistence).
 */
static void test_handoff(void)
{
	char path[256];
	uint64_t v = 0x5ca1ab1e;
	int fd, err, st = -1;
	pid_t pid;

	fd = open_slot(1, O_RDWR);
	err = fd < 0 ? errno : csr_rw(fd, CSR_SCRATCH, 1, &v);
	if (err == EOPNOTSUPP) {
		skip("owner hand-offs: the card has no CSR windows");
		close(fd);
		return;
	}
	close(fd);
	fd = open_slot(1, O_RDWR);
	v = 0;
	err = fd < 0 ? errno : csr_rw(fd, CSR_SCRATCH, 0, &v);
	check(!err && v == 0x5ca1ab1e, "same euid reopens: SCRATCH kept (%llx, %s)",
	      (unsigned long long)v, strerror(err));
	close(fd);

	/* a user without rights on the node would get EACCES: open it up for the test */
	snprintf(path, sizeof(path), "%s/scu1", card_dir);
	chmod(path, 0666);
	pid = fork();
	if (pid == 0) {
		uint64_t got = 1;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(3);
		fd = open_slot(1, O_RDWR);
		if (fd < 0 || csr_rw(fd, CSR_SCRATCH, 0, &got))
			_exit(2);
		_exit(got == 0 ? 0 : 1);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	chmod(path, 0660);
	check(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "another euid opens as owner: the SCU was reset first, SCRATCH reads 0 (child exit %d)",
	      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static int steer_add(int fd, struct scenic_scu_steer_rule *r)
{
	r->size = sizeof(*r);
	return xioctl(fd, SCENIC_SCU_IOC_STEER_ADD, r);
}

static int steer_del(int fd, uint32_t id)
{
	struct scenic_scu_steer_del d;

	memset(&d, 0, sizeof(d));
	d.size = sizeof(d);
	d.rule_id = id;
	return xioctl(fd, SCENIC_SCU_IOC_STEER_DEL, &d);
}

/* UDP to dport in the given directions */
static void udp_rule(struct scenic_scu_steer_rule *r, uint16_t dport, uint32_t dirs)
{
	memset(r, 0, sizeof(*r));
	r->flags = dirs;
	r->ip_proto = 17;
	r->ip_proto_mask = 0xff;
	r->dst_port = dport;
	r->dst_port_mask = 0xffff;
}

static int counters(int fd, struct scenic_scu_counters *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	return xioctl(fd, SCENIC_SCU_IOC_COUNTERS, c);
}

/* ifindex of the card's netdev (ethtool driver "scenic_eth"), 0 if none */
static int card_ifindex(void)
{
	struct ethtool_drvinfo di;
	struct if_nameindex *ifs, *p;
	struct ifreq ifr;
	int s, idx = 0;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ifs = if_nameindex();
	for (p = ifs; s >= 0 && p && p->if_index && !idx; p++) {
		memset(&ifr, 0, sizeof(ifr));
		memset(&di, 0, sizeof(di));
		di.cmd = ETHTOOL_GDRVINFO;
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", p->if_name);
		ifr.ifr_data = (void *)&di;
		if (!ioctl(s, SIOCETHTOOL, &ifr) && !strcmp(di.driver, "scenic_eth"))
			idx = p->if_index;
	}
	if (ifs)
		if_freenameindex(ifs);
	if (s >= 0)
		close(s);
	return idx;
}

static int has_carrier(int ifindex)
{
	char name[IF_NAMESIZE], path[256], v[8] = "";
	FILE *f;

	if (!if_indextoname(ifindex, name))
		return 0;
	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(v, sizeof(v), f))
		v[0] = 0;
	fclose(f);
	return v[0] == '1';
}

/* An IPv4/UDP broadcast frame to dport out of the card's netdev; its length or -errno. */
static int send_udp(int ifindex, uint16_t dport)
{
	unsigned char f[128];
	struct sockaddr_ll sll;
	struct ifreq ifr;
	int s, n;

	s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	if (!if_indextoname(ifindex, ifr.ifr_name) || ioctl(s, SIOCGIFFLAGS, &ifr))
		goto fail;
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &ifr))
			goto fail;
		usleep(200000);
	}
	memset(f, 0, sizeof(f));
	memset(f, 0xff, 6);
	memcpy(f + 6, "\x02\x5c\x00\x00\x00\x7e", 6);
	f[12] = 0x08;			/* IPv4 */
	f[14] = 0x45;
	f[16] = 0;
	f[17] = sizeof(f) - 14;
	f[22] = 64;
	f[23] = 17;			/* UDP */
	f[36] = dport >> 8;
	f[37] = dport & 0xff;
	f[38] = 0;
	f[39] = sizeof(f) - 34;
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = ifindex;
	sll.sll_halen = 6;
	memset(sll.sll_addr, 0xff, 6);
	n = sendto(s, f, sizeof(f), 0, (struct sockaddr *)&sll, sizeof(sll));
	if (n < 0)
		goto fail;
	close(s);
	return n;
fail:
	n = -errno;
	close(s);
	return n;
}

/* The slot's TX counters grew by `pkts` frames of `len` bytes within a second. */
static int tx_counted(int fd, const struct scenic_scu_counters *before,
		      uint64_t pkts, uint64_t len, struct scenic_scu_counters *c)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (counters(fd, c))
			return 0;
		if (c->tx_pkts_out >= before->tx_pkts_out + pkts)
			break;
		usleep(10000);
	}
	return c->tx_pkts_in == before->tx_pkts_in + pkts &&
	       c->tx_bytes_in == before->tx_bytes_in + pkts * len &&
	       c->tx_pkts_out == before->tx_pkts_out + pkts &&
	       c->tx_bytes_out == before->tx_bytes_out + pkts * len;
}

static void test_steer_frames(int fd, uint16_t dport)
{
	struct scenic_scu_counters before, c;
	int ifindex, n, err, ok;

	ifindex = card_ifindex();
	if (!ifindex) {
		skip("steered frame: no scenic_eth netdev");
		return;
	}
	err = counters(fd, &before);
	if (err) {
		skip("steered frame: COUNTERS says %s", strerror(err));
		return;
	}
	n = send_udp(ifindex, dport);
	check(n == 128, "a UDP frame to port %u sent from the card's netdev (%d)", dport, n);
	if (!has_carrier(ifindex)) {
		/* the card sends nothing (and steers nothing) while its link is down */
		skip("steered frame: the card's netdev has no carrier");
		return;
	}
	memset(&c, 0, sizeof(c));
	ok = n == 128 && tx_counted(fd, &before, 1, 128, &c);
	check(ok, "the frame went through slot 1: tx in %llu->%llu (%llu bytes), out %llu->%llu",
	      (unsigned long long)before.tx_pkts_in, (unsigned long long)c.tx_pkts_in,
	      (unsigned long long)(c.tx_bytes_in - before.tx_bytes_in),
	      (unsigned long long)before.tx_pkts_out, (unsigned long long)c.tx_pkts_out);
	/* a frame no rule matches stays on the normal path */
	n = send_udp(ifindex, dport + 1);
	usleep(100000);
	counters(fd, &before);
	check(n == 128 && before.tx_pkts_in == c.tx_pkts_in && !before.rx_pkts_in,
	      "a UDP frame to port %u (no rule) does not reach slot 1 (tx in %llu)",
	      dport + 1, (unsigned long long)before.tx_pkts_in);
}

static void test_steer(int fd)
{
	struct scenic_scu_steer_rule r;
	struct scenic_scu_load ld;
	struct scenic_scu_info i;
	char want[128];
	uint32_t id, n;
	int ro, err, st = -1;
	pid_t pid;

	info(fd, &i);
	if (!i.steer_rules_max) {
		skip("steering: the card has no steering table (steer_rules_max 0)");
		return;
	}
	check(i.steer_rules_max == 64 && i.steer_rules_used == 0,
	      "INFO: steer_rules_max %u, used %u", i.steer_rules_max, i.steer_rules_used);
	udp_rule(&r, 5000, SCENIC_SCU_STEER_DIR_TX);
	r.priority = 2;
	r.rule_id = 77;		/* output only */
	err = steer_add(fd, &r);
	id = r.rule_id;
	check(!err && id < i.steer_rules_max, "STEER_ADD of UDP port 5000 (tx): rule %u (%s)",
	      id, strerror(err));
	info(fd, &i);
	check(i.steer_rules_used == 1, "INFO: steer_rules_used 1 (got %u)", i.steer_rules_used);
	snprintf(want, sizeof(want), "%u dir tx priority 2 ip-proto 17/0xff dst-port 5000/0xffff",
		 id);
	check(!strcmp(sysfs(1, "steering"), want), "sysfs steering: '%s'", sysfs(1, "steering"));
	check(!strcmp(sysfs(2, "steering"), ""), "sysfs steering of slot 2 is empty");

	ro = open_slot(1, O_RDONLY);
	udp_rule(&r, 5001, SCENIC_SCU_STEER_DIR_RX);
	err = steer_add(ro, &r);
	check(err == EBADF, "observer's STEER_ADD: EBADF (got %s)", strerror(err));
	err = steer_del(ro, id);
	check(err == EBADF, "observer's STEER_DEL: EBADF (got %s)", strerror(err));
	close(ro);

	/* the owner fd without CAP_NET_ADMIN (a child that dropped root) */
	pid = fork();
	if (pid == 0) {
		struct scenic_scu_steer_rule cr;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(3);
		udp_rule(&cr, 5002, SCENIC_SCU_STEER_DIR_RX);
		if (steer_add(fd, &cr) != EPERM)
			_exit(1);
		_exit(steer_del(fd, id) == EPERM ? 0 : 2);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	check(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "owner without CAP_NET_ADMIN: STEER_ADD and STEER_DEL EPERM (child exit %d)",
	      WIFEXITED(st) ? WEXITSTATUS(st) : -1);

	udp_rule(&r, 5003, 0);
	err = steer_add(fd, &r);
	check(err == EINVAL, "rule without a direction: EINVAL (got %s)", strerror(err));
	udp_rule(&r, 5003, SCENIC_SCU_STEER_DIR_RX | 8);
	err = steer_add(fd, &r);
	check(err == EINVAL, "rule with an unknown flag: EINVAL (got %s)", strerror(err));
	udp_rule(&r, 5003, SCENIC_SCU_STEER_DIR_RX);
	r.dst_port_mask = 0xff00;
	err = steer_add(fd, &r);
	check(err == EINVAL, "port bits outside the mask (the card's bad_rule): EINVAL (got %s)",
	      strerror(err));
	udp_rule(&r, 5003, SCENIC_SCU_STEER_DIR_RX);
	r.ip_proto_mask = 0;
	r.ip_proto = 0;
	err = steer_add(fd, &r);
	check(err == EINVAL, "ports without TCP/UDP/SCTP: EINVAL (got %s)", strerror(err));
	udp_rule(&r, 5003, SCENIC_SCU_STEER_DIR_RX);
	r.comp_mask = 1;
	err = steer_add(fd, &r);
	check(err == EINVAL, "rule with a comp_mask bit: EINVAL (got %s)", strerror(err));
	err = steer_del(fd, 999);
	check(err == ENOENT, "STEER_DEL of rule 999: ENOENT (got %s)", strerror(err));

	test_steer_frames(fd, 5000);

	err = steer_del(fd, id);
	check(!err, "STEER_DEL of rule %u (%s)", id, strerror(err));
	err = steer_del(fd, id);
	check(err == ENOENT, "STEER_DEL of it again: ENOENT (got %s)", strerror(err));

	/* fill the table: the card says NO_RESOURCES, the ioctl ENOSPC */
	for (n = 0, err = 0; n <= i.steer_rules_max && !err; n += !err) {
		udp_rule(&r, 6000 + n, SCENIC_SCU_STEER_DIR_RX);
		err = steer_add(fd, &r);
	}
	check(err == ENOSPC && n == i.steer_rules_max,
	      "%u rules fit, the next one: ENOSPC (got %s)", n, strerror(err));
	info(fd, &i);
	check(i.steer_rules_used == n, "INFO: steer_rules_used %u", i.steer_rules_used);
	err = unload(fd, &ld);
	info(fd, &i);
	check(!err && i.steer_rules_used == 0 && !strcmp(sysfs(1, "steering"), ""),
	      "UNLOAD takes the slot's rules: used %u (%s)", i.steer_rules_used, strerror(err));
	udp_rule(&r, 5000, SCENIC_SCU_STEER_DIR_RX);
	err = steer_add(fd, &r);
	check(!err, "a rule fits again after the unload (%s)", strerror(err));
	if (!err)
		steer_del(fd, r.rule_id);
}

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/* 1 if reading the first word of @p raises SIGBUS. */
static int touch_sigbus(volatile uint64_t *p)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	volatile int bus = 0;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(bus_jmp, 1))
		bus = 1;
	else
		(void)p[0];
	sigaction(SIGBUS, &old, NULL);
	return bus;
}

/*
 * A function-level reset of the card: the open owner fd fails with ENODEV
 * and polls POLLERR from then on, its CSR mapping is gone (SIGBUS), and the
 * slot comes back (a new device) holding the passthrough, with no owner.
 */
static void test_card_reset(const struct image *good)
{
	char link[512], path[600];
	struct scenic_scu_info i;
	struct scenic_scu_load ld;
	volatile uint64_t *win;
	int fd, err, n, fd2 = -1;
	ssize_t len;
	FILE *f;

	fd = open_slot(1, O_RDWR);
	err = load(fd, good, 0, &ld);
	check(fd >= 0 && !err, "before the reset: owner of slot 1 with good.scu loaded (%s)",
	      strerror(err));
	info(fd, &i);
	win = MAP_FAILED;
	if (i.csr_size)
		win = mmap(NULL, SCENIC_SCU_CSR_WINDOW_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, i.csr_mmap_offset);
	/* the PCI function: the parent of scenic.scu.<c> */
	snprintf(path, sizeof(path), "/sys/class/scenic_scu/scenic%u!scu1/device/..", card_no);
	if (!realpath(path, link)) {
		check(0, "PCI function of the card (%s)", strerror(errno));
		close(fd);
		return;
	}
	snprintf(path, sizeof(path), "%s/reset", link);
	f = fopen(path, "w");
	len = f ? fprintf(f, "1\n") : -1;
	err = f ? fclose(f) : -1;
	check(len > 0 && !err, "echo 1 > %s", path);

	/* the old fd: ENODEV, at once or once the core has taken the device away */
	for (n = 0, err = 0; n < 200; n++) {
		err = info(fd, &i);
		if (err == ENODEV)
			break;
		usleep(100000);
	}
	check(err == ENODEV, "the owner's fd after the reset: INFO fails with ENODEV (got %s)",
	      strerror(err));
	err = load(fd, good, 0, &ld);
	check(err == ENODEV, "the owner's fd after the reset: LOAD fails with ENODEV (got %s)",
	      strerror(err));
	if (win != MAP_FAILED) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		n = poll(&pfd, 1, 0);
		check(n == 1 && (pfd.revents & POLLERR), "poll() on the old fd: POLLERR (revents 0x%x)",
		      pfd.revents);
		check(touch_sigbus(win), "the old CSR mapping was zapped: a load gets SIGBUS");
		munmap((void *)win, SCENIC_SCU_CSR_WINDOW_SIZE);
	}
	close(fd);

	/* the recovered card: a new slot device with the passthrough */
	for (n = 0; n < 300; n++) {
		fd2 = open_slot(1, O_RDWR);
		if (fd2 >= 0)
			break;
		usleep(100000);
	}
	err = fd2 >= 0 ? info(fd2, &i) : errno;
	check(!err && !strcmp(i.name, "passthrough") && i.loads == 0 &&
	      i.state == SCENIC_SCU_STATE_RUNNING,
	      "after the recovery: slot 1 opens as owner again and runs '%.32s', loads %llu (%s)",
	      err ? "" : i.name, err ? 0ULL : (unsigned long long)i.loads, strerror(err));
	if (fd2 >= 0) {
		err = load(fd2, good, 0, &ld);
		check(!err && ld.status == 0, "after the recovery: LOAD good.scu works (%s)",
		      strerror(err));
		unload(fd2, &ld);
		close(fd2);
	}
}

int main(int argc, char **argv)
{
	struct image good, good2;
	unsigned int nslots;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: scu_test CARD_DIR IMAGE_DIR\n");
		return 2;
	}
	card_dir = argv[1];
	img_dir = argv[2];
	sscanf(card_dir + strcspn(card_dir, "0123456789"), "%u", &card_no);
	good = read_image("good.scu");
	good2 = read_image("good2.scu");

	ksft_print_header();
	nslots = count_slots();
	check(nslots >= 2, "%s has %u slot devices", card_dir, nslots);
	if (nslots < 2)
		finish();
	test_info_all(nslots);
	test_open_rules();
	test_observer(&good);
	fd = open_slot(1, O_RDWR);
	if (fd < 0) {
		check(0, "slot 1: O_RDWR open (%s)", strerror(errno));
		finish();
	}
	test_load(fd, &good, &good2);
	test_bad_images(fd, &good);
	test_hostile(fd, &good);
	test_unload(fd, &good2);
	test_csr(fd);
	test_status(fd);
	test_irq(fd);
	test_steer(fd);
	close(fd);
	test_handoff();
	test_card_reset(&good);
	finish();
	return KSFT_FAIL;
}
