// SPDX-License-Identifier: MIT
/*
 * PD binding of an SCU slot (docs/scu.md 4.5), TAP: scenicdv_bind_scu_pd()
 * refusals, then the keyed-XOR test kind's memory-port CSRs (docs/scu.md 8
 * "Test kinds") reading and writing an MR of the bound PD, refused (and
 * counted in mem_faults) for another PD's MR, after the owner fd is closed
 * and after the PD is deallocated.
 *
 *   scu_pd_test /dev/scenic0 /usr/share/scenic/scu-test/xor.scu
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "scenic_scu.h"

#define SLOT 3
/* xor-test CSRs (qemu-device/model/include/scenic/scu_xor.hpp) */
#define CSR_ID 0
#define CSR_MEM_KEY 5
#define CSR_MEM_IOVA 6
#define CSR_MEM_DATA 7
#define CSR_MEM_OP 8
#define CSR_MEM_STATUS 9
#define OP_READ 1
#define OP_WRITE 2
#define ST_OK 0
#define ST_KEY_PD 2
#define XOR_ID 0x534355584f523031ULL

typedef int (*bind_fn)(struct ibv_pd *, int);

static int test_no;
static int failed;

static void result(int ok, const char *name, const char *detail)
{
	test_no++;
	if (!ok)
		failed++;
	printf("%sok %d - %s%s%s\n", ok ? "" : "not ", test_no, name,
	       detail && *detail ? " # " : "", detail ? detail : "");
	fflush(stdout);
}

static int csr(int fd, unsigned int index, int write, uint64_t *value)
{
	struct scenic_scu_csr c = { .size = sizeof(c), .index = index,
				    .write = write, .value = *value };

	if (ioctl(fd, SCENIC_SCU_IOC_CSR, &c))
		return -errno;
	*value = c.value;
	return 0;
}

static uint64_t rd(int fd, unsigned int index)
{
	uint64_t v = ~0ULL;

	if (csr(fd, index, 0, &v))
		return ~0ULL;
	return v;
}

static void wr(int fd, unsigned int index, uint64_t v)
{
	csr(fd, index, 1, &v);
}

/* One 8-byte memory-port request of the slot; its MemStatus. */
static uint64_t mem_op(int fd, uint32_t key, const void *addr, unsigned int op)
{
	wr(fd, CSR_MEM_KEY, key);
	wr(fd, CSR_MEM_IOVA, (uintptr_t)addr);
	wr(fd, CSR_MEM_OP, op);
	return rd(fd, CSR_MEM_STATUS);
}

static uint64_t mem_faults(int fd)
{
	struct scenic_scu_counters c = { .size = sizeof(c) };

	if (ioctl(fd, SCENIC_SCU_IOC_COUNTERS, &c))
		return ~0ULL;
	return c.mem_faults;
}

static int pd_bound(int fd)
{
	struct scenic_scu_info info = { .size = sizeof(info) };

	if (ioctl(fd, SCENIC_SCU_IOC_INFO, &info))
		return -1;
	return !!(info.flags & SCENIC_SCU_INFO_PD_BOUND);
}

static int load(int fd, const char *path)
{
	struct scenic_scu_load l = { .size = sizeof(l) };
	struct stat st;
	void *img;
	int ifd, err = 0;

	ifd = open(path, O_RDONLY);
	if (ifd < 0 || fstat(ifd, &st))
		return -errno;
	img = malloc(st.st_size);
	if (!img || read(ifd, img, st.st_size) != st.st_size)
		err = -EIO;
	close(ifd);
	if (!err) {
		l.image_ptr = (uintptr_t)img;
		l.image_len = st.st_size;
		if (ioctl(fd, SCENIC_SCU_IOC_LOAD, &l))
			err = -errno;
	}
	free(img);
	return err;
}

static bind_fn find_bind(void)
{
	const char *libs[] = { "libscenic.so.1",
			       "/usr/lib/x86_64-linux-gnu/libibverbs/libscenic-rdmav34.so" };
	unsigned int i;

	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		void *h = dlopen(libs[i], RTLD_NOW);

		if (h && dlsym(h, "scenicdv_bind_scu_pd"))
			return (bind_fn)dlsym(h, "scenicdv_bind_scu_pd");
	}
	return NULL;
}

static int bind_errno(bind_fn bind, struct ibv_pd *pd, int fd)
{
	return bind(pd, fd);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL, *ctx2 = NULL;
	struct ibv_pd *pd1, *pd2, *other[3], fake;
	struct ibv_mr *mr1, *mr2;
	char path[64], path0[64], detail[160];
	uint64_t *buf1, *buf2, faults, st, v;
	int owner, obs, obs0, null_fd, e, n, i;
	bind_fn bind;

	if (argc != 3) {
		fprintf(stderr, "usage: %s /dev/scenic<c> xor.scu\n", argv[0]);
		return 2;
	}
	printf("TAP version 13\n1..15\n");
	snprintf(path, sizeof(path), "%s/scu%d", argv[1], SLOT);
	snprintf(path0, sizeof(path0), "%s/scu0", argv[1]);

	bind = find_bind();
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strncmp(ibv_get_device_name(list[i]), "scenic_", 7)) {
			ctx = ibv_open_device(list[i]);
			ctx2 = ibv_open_device(list[i]);
			break;
		}
	owner = open(path, O_RDWR);
	obs = open(path, O_RDONLY);
	obs0 = open(path0, O_RDONLY);
	null_fd = open("/dev/null", O_RDWR);
	e = owner >= 0 ? load(owner, argv[2]) : -errno;
	v = owner >= 0 ? rd(owner, CSR_ID) : 0;
	snprintf(detail, sizeof(detail), "bind %p ctx %p owner %d load %d id %#llx",
		 (void *)bind, (void *)ctx, owner, e, (unsigned long long)v);
	result(bind && ctx && ctx2 && owner >= 0 && obs >= 0 && obs0 >= 0 && !e &&
	       v == XOR_ID, "set-up: scenicdv_bind_scu_pd, scenic_0, slot 3 owned, xor.scu loaded",
	       detail);
	if (!bind || !ctx || !ctx2 || owner < 0 || obs < 0 || obs0 < 0 || e)
		goto out;

	pd1 = ibv_alloc_pd(ctx);
	pd2 = ibv_alloc_pd(ctx);
	buf1 = aligned_alloc(4096, 4096);
	buf2 = aligned_alloc(4096, 4096);
	for (i = 0; i < 512; i++) {
		buf1[i] = 0x1111000000000000ULL + i;
		buf2[i] = 0x2222000000000000ULL + i;
	}
	mr1 = ibv_reg_mr(pd1, buf1, 4096, IBV_ACCESS_LOCAL_WRITE);
	mr2 = ibv_reg_mr(pd2, buf2, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!pd1 || !pd2 || !mr1 || !mr2) {
		result(0, "PDs and MRs", strerror(errno));
		goto out;
	}

	/* refusals: nothing gets bound */
	e = bind_errno(bind, pd1, obs);
	result(e == EACCES, "an observer's (O_RDONLY) fd of the slot: EACCES", strerror(e));
	e = bind_errno(bind, pd1, obs0);
	result(e == EPERM, "slot 0 (the fixed passthrough): EPERM", strerror(e));
	e = bind_errno(bind, pd1, null_fd);
	result(e == EINVAL, "an fd that is no SCU slot (/dev/null): EINVAL", strerror(e));
	e = bind_errno(bind, pd1, 1000);
	result(e == EBADF, "a closed fd number: EBADF", strerror(e));
	/* a PD handle of ctx2 that ctx does not have (ctx has handles 0 and 1) */
	for (i = 0; i < 3; i++)
		other[i] = ibv_alloc_pd(ctx2);
	fake = *other[2];
	fake.context = ctx;
	e = other[2] ? bind_errno(bind, &fake, owner) : -1;
	snprintf(detail, sizeof(detail), "handle %u: %s", other[2] ? other[2]->handle : 0,
		 e > 0 ? strerror(e) : "no PD");
	result(e == EINVAL && pd_bound(obs) == 0,
	       "a PD of another context (its handle on this context): EINVAL, nothing bound",
	       detail);
	for (i = 0; i < 3; i++)
		if (other[i])
			ibv_dealloc_pd(other[i]);
	result(pd_bound(obs) == 0 && mem_op(owner, mr1->lkey, buf1, OP_READ) == ST_KEY_PD,
	       "unbound: a read of an MR faults (KEY_PD)", NULL);

	/* bound to pd1 */
	e = bind_errno(bind, pd1, owner);
	snprintf(detail, sizeof(detail), "bind %s, PD_BOUND %d", strerror(e), pd_bound(obs));
	result(e == 0 && pd_bound(obs) == 1, "bind pd1 to slot 3 through its owner fd", detail);
	faults = mem_faults(owner);
	st = mem_op(owner, mr1->lkey, &buf1[7], OP_READ);
	v = rd(owner, CSR_MEM_DATA);
	snprintf(detail, sizeof(detail), "status %llu data %#llx", (unsigned long long)st,
		 (unsigned long long)v);
	result(st == ST_OK && v == buf1[7], "the slot reads pd1's MR: the bytes of buf1[7]", detail);
	wr(owner, CSR_MEM_DATA, 0x5c5c5c5c12345678ULL);
	st = mem_op(owner, mr1->lkey, &buf1[9], OP_WRITE);
	snprintf(detail, sizeof(detail), "status %llu buf1[9] %#llx", (unsigned long long)st,
		 (unsigned long long)buf1[9]);
	result(st == ST_OK && buf1[9] == 0x5c5c5c5c12345678ULL && buf1[8] == 0x1111000000000008ULL &&
	       buf1[10] == 0x111100000000000aULL, "the slot writes pd1's MR: 8 bytes, nothing else",
	       detail);
	wr(owner, CSR_MEM_DATA, 0);
	st = mem_op(owner, mr2->lkey, &buf2[3], OP_READ);
	v = rd(owner, CSR_MEM_DATA);
	wr(owner, CSR_MEM_DATA, ~0ULL);
	e = (int)mem_op(owner, mr2->lkey, &buf2[4], OP_WRITE);
	snprintf(detail, sizeof(detail), "read %llu data %#llx write %d buf2[4] %#llx faults +%llu",
		 (unsigned long long)st, (unsigned long long)v, e, (unsigned long long)buf2[4],
		 (unsigned long long)(mem_faults(owner) - faults));
	result(st == ST_KEY_PD && v == 0 && e == ST_KEY_PD && buf2[4] == 0x2222000000000004ULL &&
	       mem_faults(owner) == faults + 2,
	       "pd2's MR: read and write refused (KEY_PD), no byte moved, mem_faults +2", detail);

	/* closing the owner fd unbinds; the same user re-opens (no reset, xor.scu stays) */
	close(owner);
	e = pd_bound(obs);
	owner = open(path, O_RDWR);
	faults = mem_faults(obs);
	st = owner >= 0 ? mem_op(owner, mr1->lkey, &buf1[7], OP_READ) : ~0ULL;
	snprintf(detail, sizeof(detail), "PD_BOUND %d, status %llu, faults +%llu", e,
		 (unsigned long long)st, (unsigned long long)(mem_faults(obs) - faults));
	result(e == 0 && st == ST_KEY_PD && mem_faults(obs) == faults + 1,
	       "owner fd closed: unbound, pd1's MR refused and counted", detail);

	/* deallocating the PD unbinds too */
	e = owner >= 0 ? bind_errno(bind, pd1, owner) : -1;
	i = pd_bound(obs);
	ibv_dereg_mr(mr1);
	mr1 = NULL;
	ibv_dealloc_pd(pd1);
	snprintf(detail, sizeof(detail), "rebind %d, bound before %d, after %d", e, i,
		 pd_bound(obs));
	result(e == 0 && i == 1 && pd_bound(obs) == 0, "ibv_dealloc_pd of the bound PD unbinds",
	       detail);
	/* a bound slot, then its PD's context goes away with the process's close */
	e = bind_errno(bind, pd2, owner);
	i = pd_bound(obs);
	ibv_dereg_mr(mr2);
	ibv_dealloc_pd(pd2);
	result(e == 0 && i == 1 && pd_bound(obs) == 0, "bind pd2, dealloc: unbound", NULL);
	v = 0;
	if (owner >= 0 && !ioctl(owner, SCENIC_SCU_IOC_UNLOAD,
				 &(struct scenic_scu_load){ .size = sizeof(struct scenic_scu_load) }))
		v = 1;
	result(v == 1, "unload slot 3", NULL);
out:
	while (test_no < 15)
		result(0, "not reached", NULL);
	if (ctx)
		ibv_close_device(ctx);
	if (ctx2)
		ibv_close_device(ctx2);
	return failed ? 1 : 0;
}
