// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCU image checks done by the kernel before the card sees any byte
 * (docs/scu.md section 5): the common mistakes get a precise status without
 * a DMA; the card checks everything again.
 */
#include <crypto/sha2.h>
#include <linux/crc32.h>
#include <linux/device.h>
#include <linux/string.h>

#include "scenic_scu_drv.h"

/* Header offsets (docs/scu.md 5). */
#define HDR_MAGIC	0x00
#define HDR_FORMAT	0x08
#define HDR_SIZE	0x0a
#define HDR_IFACE	0x0c
#define HDR_KIND	0x10
#define HDR_KIND_VER	0x14
#define HDR_FLAGS	0x16
#define HDR_BUILD_ID	0x18
#define HDR_NAME	0x20
#define HDR_POFF	0x60
#define HDR_PSIZE	0x68
#define HDR_SHA256	0x70
#define HDR_CRC		0xfc

#define SCU_IMAGE_FORMAT 1

static const u8 scu_magic[8] = "SCENSCU";

/* memcpy: no unaligned-access header is common to 6.1 and 6.12 */
static u16 rd16(const u8 *p, size_t off)
{
	__le16 v;

	memcpy(&v, p + off, sizeof(v));
	return le16_to_cpu(v);
}

static u32 rd32(const u8 *p, size_t off)
{
	__le32 v;

	memcpy(&v, p + off, sizeof(v));
	return le32_to_cpu(v);
}

static u64 rd64(const u8 *p, size_t off)
{
	__le64 v;

	memcpy(&v, p + off, sizeof(v));
	return le64_to_cpu(v);
}

/* Reserved header bytes: 0x58..0x5f, 0x64..0x67, 0x90..0xfb. */
static bool reserved_zero(const u8 *hdr)
{
	return !memchr_inv(hdr + 0x58, 0, 8) && !memchr_inv(hdr + 0x64, 0, 4) &&
	       !memchr_inv(hdr + 0x90, 0, HDR_CRC - 0x90);
}

/**
 * scenic_scu_image_check_header - check the first 256 bytes of an image
 * @hdr: SCENIC_SCU_HDR_LEN bytes
 * @image_len: the whole image's length (at least SCENIC_SCU_HDR_LEN)
 * @card_iface: SCU.IFACE_VERSION
 * @img: filled in when the header is good
 * @dev: for dev_dbg, which names the field refused
 *
 * Return: SCENIC_SCU_LOAD_OK or the refusal status.
 */
u32 scenic_scu_image_check_header(const u8 *hdr, u64 image_len,
				  u32 card_iface, struct scenic_scu_image *img,
				  struct device *dev)
{
	u32 crc, hsize, poff, iface;
	u64 psize;

	if (memcmp(hdr + HDR_MAGIC, scu_magic, sizeof(scu_magic))) {
		dev_dbg(dev, "image refused: magic\n");
		return SCENIC_SCU_LOAD_BAD_MAGIC;
	}
	if (rd16(hdr, HDR_FORMAT) != SCU_IMAGE_FORMAT) {
		dev_dbg(dev, "image refused: format version %u\n",
			rd16(hdr, HDR_FORMAT));
		return SCENIC_SCU_LOAD_BAD_FORMAT_VERSION;
	}
	hsize = rd16(hdr, HDR_SIZE);
	if (hsize < SCENIC_SCU_HDR_LEN || hsize > image_len) {
		dev_dbg(dev, "image refused: header size %u\n", hsize);
		return SCENIC_SCU_LOAD_BAD_HEADER;
	}
	/* zlib's CRC-32, as the image writers compute it */
	crc = crc32_le(~0U, hdr, HDR_CRC) ^ ~0U;
	if (crc != rd32(hdr, HDR_CRC)) {
		dev_dbg(dev, "image refused: header CRC 0x%08x, computed 0x%08x\n",
			rd32(hdr, HDR_CRC), crc);
		return SCENIC_SCU_LOAD_BAD_HEADER;
	}
	if (!reserved_zero(hdr)) {
		dev_dbg(dev, "image refused: reserved header bytes not zero\n");
		return SCENIC_SCU_LOAD_BAD_HEADER;
	}
	poff = rd32(hdr, HDR_POFF);
	psize = rd64(hdr, HDR_PSIZE);
	if (poff < hsize || (poff & 7) || poff > image_len ||
	    psize > image_len - poff) {
		dev_dbg(dev, "image refused: payload offset %u size %llu in %llu bytes\n",
			poff, psize, image_len);
		return SCENIC_SCU_LOAD_BAD_HEADER;
	}
	iface = rd32(hdr, HDR_IFACE);
	if ((iface >> 16) != (card_iface >> 16) ||
	    (iface & 0xffff) > (card_iface & 0xffff)) {
		dev_dbg(dev, "image refused: interface %u.%u, card %u.%u\n",
			iface >> 16, iface & 0xffff, card_iface >> 16,
			card_iface & 0xffff);
		return SCENIC_SCU_LOAD_BAD_IFACE_VERSION;
	}
	/* kind 0 is in no registry; the card knows its own catalogue */
	if (!rd32(hdr, HDR_KIND)) {
		dev_dbg(dev, "image refused: kind 0\n");
		return SCENIC_SCU_LOAD_UNKNOWN_KIND;
	}

	memset(img, 0, sizeof(*img));
	img->iface = iface;
	img->kind = rd32(hdr, HDR_KIND);
	img->kind_version = rd16(hdr, HDR_KIND_VER);
	img->flags = rd16(hdr, HDR_FLAGS);
	img->build_id = rd64(hdr, HDR_BUILD_ID);
	memcpy(img->name, hdr + HDR_NAME, SCENIC_SCU_NAME_LEN);
	img->name[SCENIC_SCU_NAME_LEN] = '\0';
	memcpy(img->sha256, hdr + HDR_SHA256, SCENIC_SCU_SHA256_LEN);
	img->payload_offset = poff;
	img->payload_size = psize;
	return SCENIC_SCU_LOAD_OK;
}

/**
 * scenic_scu_image_check_payload - the payload's SHA-256 against the header's
 * @image: the whole image (its header passed scenic_scu_image_check_header)
 * @img: what that check returned
 * @dev: for dev_dbg
 *
 * Return: SCENIC_SCU_LOAD_OK or SCENIC_SCU_LOAD_HASH_MISMATCH.
 */
u32 scenic_scu_image_check_payload(const u8 *image,
				   const struct scenic_scu_image *img,
				   struct device *dev)
{
	u8 digest[SHA256_DIGEST_SIZE];

	/* payload_size <= image_len <= SCENIC_SCU_MAX_IMAGE_LEN fits sha256()'s length */
	sha256(image + img->payload_offset, img->payload_size, digest);
	if (memcmp(digest, img->sha256, sizeof(digest))) {
		dev_dbg(dev, "image refused: payload SHA-256 mismatch\n");
		return SCENIC_SCU_LOAD_HASH_MISMATCH;
	}
	return SCENIC_SCU_LOAD_OK;
}
