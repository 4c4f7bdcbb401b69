// SPDX-License-Identifier: MIT
/*
 * rawsend: send or count raw Ethernet frames of any length (AF_PACKET), for the
 * SCENIC ETH selftests. Built on the host (gcc -static) by selftests/run-vm-tests and put into
 * the guest as /usr/bin/rawsend.
 *
 *   rawsend -i IF -d MAC -l LEN [-n COUNT] [-g USEC [-b BURST]] [-t TYPE]
 *	send COUNT (1) frames of LEN bytes (a pause of USEC after every frame, or
 *	after every BURST frames): destination MAC, the interface's MAC,
 *	EtherType TYPE (0x88b5, IEEE local experimental), then a byte pattern.
 *	LEN < 14 cuts the header short. Prints "sent N of COUNT"; exit 0 if all went.
 *   rawsend -r -i IF -w SEC [-t TYPE]
 *	count every frame IF receives during SEC seconds, and those of EtherType TYPE;
 *	prints "received N frames (type 0x88b5: K), min M max X bytes" (lengths as
 *	delivered to the stack, so a runt or oversize frame that got through shows).
 *
 * Note: the Linux AF_PACKET send path refuses frames shorter than the device's
 * min_header_len (14 for Ethernet, dev_validate_header) with EINVAL, whatever
 * the capabilities: runts have to come from elsewhere (the VM runner's wire
 * injection, see tools/vm/scenicvm.py).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void usage(void)
{
	fprintf(stderr,
		"usage: rawsend -i IF -d MAC -l LEN [-n COUNT] [-g USEC [-b BURST]] [-t TYPE]\n"
		"       rawsend -r -i IF -w SEC [-t TYPE]\n");
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *ifname = NULL, *dst = NULL;
	unsigned int type = 0x88b5, count = 1, gap_us = 0, burst = 1;
	int len = -1, recv_mode = 0, opt;
	double wait_s = 0;

	while ((opt = getopt(argc, argv, "i:d:l:n:g:b:t:rw:")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'd': dst = optarg; break;
		case 'l': len = atoi(optarg); break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'g': gap_us = strtoul(optarg, NULL, 0); break;
		case 'b': burst = strtoul(optarg, NULL, 0); break;
		case 't': type = strtoul(optarg, NULL, 0); break;
		case 'r': recv_mode = 1; break;
		case 'w': wait_s = atof(optarg); break;
		default: usage();
		}
	}
	if (!ifname || (!recv_mode && (!dst || len < 1 || len > 65535)) ||
	    (recv_mode && wait_s <= 0))
		usage();

	int ifindex = if_nametoindex(ifname);

	if (!ifindex) {
		fprintf(stderr, "rawsend: %s: %s\n", ifname, strerror(errno));
		return 2;
	}
	int fd = socket(AF_PACKET, SOCK_RAW, htons(recv_mode ? type : 0));

	if (fd < 0) {
		perror("rawsend: socket");
		return 2;
	}
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = ifindex,
		.sll_protocol = htons(recv_mode ? type : 0),
	};

	if (recv_mode) {
		unsigned char buf[65536];
		unsigned long n = 0, nt = 0, mn = 0, mx = 0;
		double end;

		/* every frame the interface receives (not our own outgoing ones) */
		close(fd);
		fd = socket(AF_PACKET, SOCK_RAW, htons(0x0003 /* ETH_P_ALL */));
		sll.sll_protocol = htons(0x0003);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
			perror("rawsend: socket/bind");
			return 2;
		}
		end = now() + wait_s;
		for (;;) {
			double left = end - now();
			struct pollfd p = { .fd = fd, .events = POLLIN };
			struct sockaddr_ll from;
			socklen_t fl = sizeof(from);

			if (left <= 0)
				break;
			if (poll(&p, 1, (int)(left * 1000) + 1) <= 0)
				continue;
			ssize_t r = recvfrom(fd, buf, sizeof(buf), MSG_TRUNC,
					     (struct sockaddr *)&from, &fl);

			if (r < 0 || from.sll_pkttype == PACKET_OUTGOING)
				continue;
			n++;
			if (r >= 14 && (buf[12] << 8 | buf[13]) == (int)type)
				nt++;
			if (n == 1 || (unsigned long)r < mn)
				mn = r;
			if ((unsigned long)r > mx)
				mx = r;
		}
		printf("received %lu frames (type 0x%04x: %lu), min %lu max %lu bytes\n",
		       n, type, nt, mn, mx);
		return 0;
	}

	struct ifreq ifr;
	unsigned char mac[6], frame[65536];
	unsigned int m[6], sent = 0;
	int err = 0;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		perror("rawsend: SIOCGIFHWADDR");
		return 2;
	}
	if (sscanf(dst, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
		usage();
	for (int i = 0; i < 6; i++)
		mac[i] = m[i];
	memcpy(frame, mac, 6);
	memcpy(frame + 6, ifr.ifr_hwaddr.sa_data, 6);
	frame[12] = type >> 8;
	frame[13] = type & 0xff;
	for (int i = 14; i < len; i++)
		frame[i] = (unsigned char)i;
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, mac, 6);
	for (unsigned int i = 0; i < count; i++) {
		if (sendto(fd, frame, len, 0, (struct sockaddr *)&sll, sizeof(sll)) == len) {
			sent++;
		} else if (!err) {
			err = errno;
		}
		if (gap_us && (burst <= 1 || (i + 1) % burst == 0))
			usleep(gap_us);
	}
	printf("sent %u of %u frames of %d bytes", sent, count, len);
	if (err)
		printf(" (first error: %s)", strerror(err));
	printf("\n");
	return sent == count ? 0 : 1;
}
