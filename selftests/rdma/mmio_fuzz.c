// SPDX-License-Identifier: MIT
/*
 * mmio_fuzz: random register and doorbell accesses from a hostile guest root against the card
 * (issue 15), through the sysfs BAR files: BAR0 (registers, resource0) and the doorbell BAR
 * (resource4), any offset, sizes 1/2/4/8, values drawn from a fixed-seed generator (random
 * words, small numbers, single bits, all ones, queue enables, and the card's own BAR addresses
 * so that rings and DMA aimed at its BARs are tried), with short pauses so that the card's
 * timers run in between. The caller unbinds the driver and leaves bus mastering off first, so
 * every DMA the card attempts is refused (guest RAM stays intact whatever the card is told).
 *
 * Usage: mmio_fuzz -b BDF [-s SEED] [-n OPS]
 * Prints one summary line; exit 0 when every access was made, 2 on set-up errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct bar {
	volatile uint8_t *p;
	size_t size;
	uint64_t phys;
};

static uint64_t rng;

/* xorshift64*: a fixed seed gives the same access sequence on every run */
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static int map_bar(const char *bdf, int idx, struct bar *b)
{
	char path[128];
	struct stat st;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource%d", bdf, idx);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "mmio_fuzz: %s: %s\n", path, strerror(errno));
		return -1;
	}
	b->size = (size_t)st.st_size;
	b->p = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (b->p == MAP_FAILED) {
		fprintf(stderr, "mmio_fuzz: mmap %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* line idx of "resource": start end flags */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", bdf);
	f = fopen(path, "r");
	b->phys = 0;
	for (int i = 0; f && i <= idx; i++)
		if (fscanf(f, "%" SCNx64 " %*x %*x", &b->phys) != 1)
			break;
	if (f)
		fclose(f);
	return 0;
}

static uint64_t value(const struct bar *bars, int nbars)
{
	uint64_t r = rnd();

	switch (r % 8) {
	case 0:
	case 1:
		return rnd();
	case 2:
		return (r >> 8) % 64;
	case 3:
		return 1ull << ((r >> 8) % 32);
	case 4:
		return ~0ull;
	case 5:
		return 0x80000000u | ((r >> 8) & 0x1f0f);	/* enable + vector + log2 depth */
	case 6: {
		const struct bar *b = &bars[(r >> 8) % nbars];

		return b->phys + ((r >> 16) % b->size);	/* the card's own BARs */
	}
	default:
		return 0;
	}
}

static void write_at(volatile uint8_t *p, int size, uint64_t v)
{
	switch (size) {
	case 1:
		*p = (uint8_t)v;
		break;
	case 2:
		*(volatile uint16_t *)p = (uint16_t)v;
		break;
	case 4:
		*(volatile uint32_t *)p = (uint32_t)v;
		break;
	default:
		*(volatile uint64_t *)p = v;
	}
}

static uint64_t read_at(volatile uint8_t *p, int size)
{
	switch (size) {
	case 1:
		return *p;
	case 2:
		return *(volatile uint16_t *)p;
	case 4:
		return *(volatile uint32_t *)p;
	default:
		return *(volatile uint64_t *)p;
	}
}

int main(int argc, char **argv)
{
	static const int sizes[] = { 4, 4, 4, 4, 4, 8, 2, 1 };
	unsigned long ops = 100000, writes = 0, reads = 0, pauses = 0;
	struct bar bars[2];
	const char *bdf = NULL;
	uint64_t seed = 15, acc = 0;
	struct timespec t0, t1;
	int o;

	while ((o = getopt(argc, argv, "b:s:n:")) != -1) {
		if (o == 'b')
			bdf = optarg;
		else if (o == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (o == 'n')
			ops = strtoul(optarg, NULL, 0);
	}
	if (!bdf) {
		fprintf(stderr, "usage: mmio_fuzz -b BDF [-s SEED] [-n OPS]\n");
		return 2;
	}
	if (map_bar(bdf, 0, &bars[0]) || map_bar(bdf, 4, &bars[1]))
		return 2;
	rng = seed ? seed : 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long i = 0; i < ops; i++) {
		uint64_t r = rnd(), kind = r % 100;
		int size = sizes[(r >> 8) % 8];
		struct bar *b = kind < 70 ? &bars[0] : &bars[1];
		size_t off;

		if (kind < 70 && (r >> 16) % 8) /* registers sit low in each 4 KiB block */
			off = ((r >> 24) % (b->size / 4096)) * 4096 + ((r >> 40) % 0x200) * 4;
		else
			off = (size_t)((r >> 24) % b->size);
		off &= ~(size_t)(size - 1);
		if (kind == 99) {
			usleep((useconds_t)((r >> 32) % 2000));
			pauses++;
		} else if (kind % 4 == 3) {
			acc ^= read_at(b->p + off, size);
			reads++;
		} else {
			write_at(b->p + off, size, value(bars, 2));
			writes++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("mmio_fuzz: seed %" PRIu64 ": %lu writes, %lu reads (xor %016" PRIx64 "), %lu pauses in %.1f s; BAR0 %zu B at %#" PRIx64 ", BAR4 %zu B at %#" PRIx64 "\n",
	       seed, writes, reads, acc, pauses,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       bars[0].size, bars[0].phys, bars[1].size, bars[1].phys);
	return 0;
}
