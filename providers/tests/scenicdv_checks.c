// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Unit tests of the scenicdv argument checks (providers/scenic/dv.c): the
 * efadv rules (device, comp_mask, reserved, inlen) and SCENIC_DEFAULT_SCU
 * parsing. Prints TAP.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "dv.h"

static int n, failed;

static void check(int got, int want, const char *name)
{
	n++;
	if (got == want) {
		printf("ok %d - %s\n", n, name);
	} else {
		failed++;
		printf("not ok %d - %s # got %d (%s), want %d (%s)\n", n, name,
		       got, strerror(got), want, strerror(want));
	}
}

struct bigger {
	struct scenicdv_qp_init_attr a;
	uint64_t future;
};

int main(void)
{
	struct ibv_qp_init_attr_ex qp = { .qp_type = IBV_QPT_RC };
	struct scenicdv_qp_init_attr in = { .scu_index = 3 }, out;
	struct bigger big = { .a.scu_index = 5 };
	uint32_t full = sizeof(in);
	uint16_t scu = 99;

	printf("TAP version 13\n");

	check(scenic_check_create_qp_attr(true, &qp, &in, full, 16, &out), 0,
	      "valid attributes accepted");
	check(out.scu_index, 3, "scu_index copied");
	check(scenic_check_create_qp_attr(false, &qp, &in, full, 16, &out),
	      EOPNOTSUPP, "other device: EOPNOTSUPP");
	check(scenic_check_create_qp_attr(true, NULL, &in, full, 16, &out),
	      EINVAL, "NULL attr_ex: EINVAL");
	check(scenic_check_create_qp_attr(true, &qp, NULL, full, 16, &out),
	      EINVAL, "NULL scenicdv attr: EINVAL");

	qp.qp_type = IBV_QPT_UD;
	check(scenic_check_create_qp_attr(true, &qp, &in, full, 16, &out),
	      EOPNOTSUPP, "UD QP: EOPNOTSUPP");
	qp.qp_type = IBV_QPT_RC;

	in.comp_mask = 1;
	check(scenic_check_create_qp_attr(true, &qp, &in, full, 16, &out),
	      EINVAL, "comp_mask bit 0: EINVAL");
	in.comp_mask = 1ULL << 63;
	check(scenic_check_create_qp_attr(true, &qp, &in, full, 16, &out),
	      EINVAL, "comp_mask bit 63: EINVAL");
	in.comp_mask = 0;

	in.reserved[0] = 1;
	check(scenic_check_create_qp_attr(true, &qp, &in, full, 16, &out),
	      EINVAL, "reserved[0] set: EINVAL");
	in.reserved[0] = 0;
	in.reserved[5] = 0x80;
	check(scenic_check_create_qp_attr(true, &qp, &in, full, 16, &out),
	      EINVAL, "reserved[5] set: EINVAL");
	in.reserved[5] = 0;

	check(scenic_check_create_qp_attr(true, &qp, &in, 0, 16, &out),
	      EINVAL, "inlen 0: EINVAL");
	check(scenic_check_create_qp_attr(true, &qp, &in, 8, 16, &out),
	      EINVAL, "inlen without scu_index: EINVAL");
	check(scenic_check_create_qp_attr(true, &qp, &in, 10, 16, &out), 0,
	      "inlen up to scu_index (older caller): accepted");
	in.reserved[0] = 1;
	check(scenic_check_create_qp_attr(true, &qp, &in, 10, 16, &out), 0,
	      "bytes past a short inlen are not read");
	in.reserved[0] = 0;

	check(scenic_check_create_qp_attr(true, &qp, &big.a, sizeof(big), 16,
					  &out), 0,
	      "larger inlen with zero tail: accepted");
	check(out.scu_index, 5, "scu_index copied from larger struct");
	big.future = 1;
	check(scenic_check_create_qp_attr(true, &qp, &big.a, sizeof(big), 16,
					  &out), EINVAL,
	      "larger inlen with non-zero tail: EINVAL");

	in.scu_index = 15;
	check(scenic_check_create_qp_attr(true, &qp, &in, full, 16, &out), 0,
	      "SCU 15 of 16: accepted");
	in.scu_index = 16;
	check(scenic_check_create_qp_attr(true, &qp, &in, full, 16, &out),
	      EINVAL, "SCU 16 of 16: EINVAL");
	in.scu_index = 4;
	check(scenic_check_create_qp_attr(true, &qp, &in, full, 4, &out),
	      EINVAL, "SCU 4 on a 4-SCU card: EINVAL");
	check(scenic_check_create_qp_attr(true, &qp, &in, full, 0, &out), 0,
	      "SCU 4, SCU count not known: ABI maximum applies");

	check(scenic_parse_scu("2", 16, &scu), 0, "SCENIC_DEFAULT_SCU=2 parsed");
	check(scu, 2, "SCENIC_DEFAULT_SCU=2 gives SCU 2");
	check(scenic_parse_scu("15", 16, &scu), 0, "SCENIC_DEFAULT_SCU=15 parsed");
	check(scenic_parse_scu("16", 16, &scu), EINVAL, "SCENIC_DEFAULT_SCU=16: EINVAL");
	check(scenic_parse_scu("3", 2, &scu), EINVAL, "SCU 3 on a 2-SCU card: EINVAL");
	check(scenic_parse_scu("", 16, &scu), EINVAL, "empty: EINVAL");
	check(scenic_parse_scu("-1", 16, &scu), EINVAL, "-1: EINVAL");
	check(scenic_parse_scu("1x", 16, &scu), EINVAL, "1x: EINVAL");
	check(scenic_parse_scu(" 1", 16, &scu), EINVAL, "leading space: EINVAL");
	check(scenic_parse_scu("99999999999999999999", 16, &scu), EINVAL,
	      "overflow: EINVAL");

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
