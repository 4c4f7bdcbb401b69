// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Argument checks of the scenicdv API (the efadv_create_qp_ex pattern).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dv.h"

#define scenic_min(a, b) ((a) < (b) ? (a) : (b))
#define scenic_end_of(type, member) \
	(offsetof(type, member) + sizeof(((type *)NULL)->member))

static bool is_zero(const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/*
 * Checks a scenicdv_create_qp_ex() call and copies the caller's attributes into
 * *out (zero-filled past what the caller passed). Returns 0 or the errno value:
 * EOPNOTSUPP when the device is not a SCENIC card or the QP type is not RC,
 * EINVAL for a NULL pointer, an inlen too small to carry scu_index, a non-zero
 * comp_mask or reserved byte, non-zero bytes past our struct, or an SCU index
 * the card does not have (num_scus; 0 means "not known yet": the ABI maximum).
 */
int scenic_check_create_qp_attr(bool is_scenic_dev,
				const struct ibv_qp_init_attr_ex *attr_ex,
				const struct scenicdv_qp_init_attr *in,
				uint32_t inlen, uint16_t num_scus,
				struct scenicdv_qp_init_attr *out)
{
	if (!is_scenic_dev)
		return EOPNOTSUPP;
	if (!attr_ex || !in || !out)
		return EINVAL;
	if (attr_ex->qp_type != IBV_QPT_RC)
		return EOPNOTSUPP;
	if (inlen < scenic_end_of(struct scenicdv_qp_init_attr, scu_index))
		return EINVAL;
	if (inlen > sizeof(*in) &&
	    !is_zero((const uint8_t *)in + sizeof(*in), inlen - sizeof(*in)))
		return EINVAL;

	memset(out, 0, sizeof(*out));
	memcpy(out, in, scenic_min(inlen, (uint32_t)sizeof(*out)));

	if (out->comp_mask)
		return EINVAL;
	if (!is_zero(out->reserved, sizeof(out->reserved)))
		return EINVAL;
	if (!num_scus || num_scus > SCENICDV_MAX_SCUS)
		num_scus = SCENICDV_MAX_SCUS;
	if (out->scu_index >= num_scus)
		return EINVAL;
	return 0;
}

/*
 * Parses an SCU index (decimal, 0 .. num_scus - 1) as given in
 * SCENIC_DEFAULT_SCU. Returns 0 or EINVAL.
 */
int scenic_parse_scu(const char *str, uint16_t num_scus, uint16_t *scu)
{
	unsigned long v;
	char *end;

	if (!str || !*str || *str < '0' || *str > '9')
		return EINVAL;
	errno = 0;
	v = strtoul(str, &end, 10);
	if (errno || *end)
		return EINVAL;
	if (!num_scus || num_scus > SCENICDV_MAX_SCUS)
		num_scus = SCENICDV_MAX_SCUS;
	if (v >= num_scus)
		return EINVAL;
	*scu = v;
	return 0;
}
