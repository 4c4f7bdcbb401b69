/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * ioctl ABI of the SCU slot char devices /dev/scenic<c>/scu<n> (scenic_scu.ko)
 * and user space (libscenic, scenicctl). docs/scu.md section 4 is the
 * specification; this header is its one C definition.
 *
 * Struct rules: every struct starts with size and comp_mask, is a multiple of
 * 8 bytes and puts every __u64 on an 8-byte offset; padding is named
 * reserved_<bit offset> and must be zero. The kernel refuses a size below the
 * first version (EINVAL), copies min(size, known), fails with E2BIG when bytes
 * beyond what it knows are non-zero, refuses unknown comp_mask bits (EINVAL)
 * and copies back min(size, known) bytes. Output fields are written even when
 * the ioctl fails with a status (LOAD).
 *
 * Ownership: an O_RDWR open makes the opener the slot's owner (exclusive,
 * EBUSY for a second one; slot 0 refuses it with EPERM). O_RDONLY opens may
 * use INFO and COUNTERS and map the status page only.
 */
#ifndef SCENIC_SCU_USER_H
#define SCENIC_SCU_USER_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* ioctl type byte ('\\'); free in Documentation/userspace-api/ioctl/ioctl-number.rst */
#define SCENIC_SCU_IOC_TYPE 0x5c

/* Size of a slot's CSR window: 8192 registers of 64 bits. */
#define SCENIC_SCU_CSR_WINDOW_SIZE 65536
#define SCENIC_SCU_CSR_COUNT (SCENIC_SCU_CSR_WINDOW_SIZE / 8)
/* Interrupt lines per slot. */
#define SCENIC_SCU_IRQ_LINES 4
/* Largest image the kernel accepts (the card may accept less: SCU.MAX_IMAGE). */
#define SCENIC_SCU_MAX_IMAGE_LEN (64ULL << 20)
#define SCENIC_SCU_NAME_LEN 32
#define SCENIC_SCU_SHA256_LEN 32

/* scenic_scu_info.flags */
enum scenic_scu_info_flags {
	SCENIC_SCU_INFO_OWNED = 1 << 0,		/* some file holds the slot O_RDWR */
	SCENIC_SCU_INFO_FIXED = 1 << 1,		/* slot 0: never reconfigured or owned */
	SCENIC_SCU_INFO_PD_BOUND = 1 << 2,	/* a protection domain is bound */
	SCENIC_SCU_INFO_OWNER_IS_ME = 1 << 3,	/* this file is the owner */
};

/* scenic_scu_info.state, the card's slot state (SCU.SLOT_STATE) */
enum scenic_scu_state {
	SCENIC_SCU_STATE_RUNNING = 0,
	SCENIC_SCU_STATE_DRAINING = 1,
	SCENIC_SCU_STATE_LOADING = 2,
	SCENIC_SCU_STATE_FAILED = 3,
};

/* SCENIC_SCU_IOC_INFO: what the slot holds (any opener). All output. */
struct scenic_scu_info {
	__u32 size;
	__u32 comp_mask;
	__u16 card;
	__u16 slot;
	__u16 num_slots;
	__u16 irq_lines;
	__u32 state;			/* enum scenic_scu_state */
	__u32 flags;			/* enum scenic_scu_info_flags */
	__u32 iface_version;		/* major 31:16, minor 15:0 */
	__u32 data_width;		/* slot stream width in bits */
	__u32 kind;
	__u16 kind_version;
	__u8 reserved_130[2];
	__aligned_u64 build_id;
	char name[SCENIC_SCU_NAME_LEN];	/* NUL-padded */
	__u8 image_sha256[SCENIC_SCU_SHA256_LEN];
	__u32 csr_size;
	__u32 steer_rules_used;
	__aligned_u64 csr_mmap_offset;
	__aligned_u64 status_mmap_offset;
	__u32 status_size;
	__u32 reconfig_delay_us;
	__aligned_u64 loads;		/* successful LOADs and UNLOADs since the card's reset */
	__aligned_u64 last_pause_ns;
	__u32 qp_policy;		/* enum scenic_scu_qp_policy */
	__u32 steer_rules_max;
	__u32 lut_budget;
	__u32 ff_budget;
	__u32 bram_budget;
	__u32 dsp_budget;
	__u8 reserved_5c0[8];
};

/* scenic_scu_load.flags */
enum scenic_scu_load_flags {
	SCENIC_SCU_LOAD_DRY_RUN = 1 << 0,	/* check the image, change nothing */
	SCENIC_SCU_LOAD_FORCE = 1 << 1,		/* swap at the drain timeout instead of giving up */
};

/* scenic_scu_load.status; the errno of the ioctl is named with each value. */
enum scenic_scu_load_status {
	SCENIC_SCU_LOAD_OK = 0,
	SCENIC_SCU_LOAD_BAD_MAGIC = 1,		/* ENOEXEC */
	SCENIC_SCU_LOAD_BAD_FORMAT_VERSION = 2,	/* ENOEXEC */
	SCENIC_SCU_LOAD_BAD_HEADER = 3,		/* ENOEXEC: size, CRC-32, non-zero reserved */
	SCENIC_SCU_LOAD_BAD_IFACE_VERSION = 4,	/* ENOEXEC */
	SCENIC_SCU_LOAD_UNKNOWN_KIND = 5,	/* ENOEXEC: kind or kind version */
	SCENIC_SCU_LOAD_HASH_MISMATCH = 6,	/* ENOEXEC */
	SCENIC_SCU_LOAD_BAD_DATA_WIDTH = 7,	/* ENOEXEC */
	SCENIC_SCU_LOAD_NO_RESOURCES = 8,	/* ENOSPC */
	SCENIC_SCU_LOAD_DRAIN_TIMEOUT = 9,	/* ETIMEDOUT: old SCU kept */
	SCENIC_SCU_LOAD_FIXED_SLOT = 10,	/* EPERM */
	SCENIC_SCU_LOAD_TOO_LARGE = 11,		/* EFBIG */
	SCENIC_SCU_LOAD_CARD_ERROR = 12,	/* EIO: the command failed */
	SCENIC_SCU_LOAD_RECONFIG_FAILED = 13,	/* EIO: the slot is now FAILED */
};

/* SCENIC_SCU_IOC_LOAD and SCENIC_SCU_IOC_UNLOAD (image fields zero): owner only. */
struct scenic_scu_load {
	__u32 size;
	__u32 comp_mask;
	__aligned_u64 image_ptr;	/* user address of the image */
	__aligned_u64 image_len;	/* at most SCENIC_SCU_MAX_IMAGE_LEN */
	__u32 flags;			/* enum scenic_scu_load_flags */
	__u32 drain_timeout_ms;		/* 0: 100 */
	/* out */
	__u32 status;			/* enum scenic_scu_load_status */
	__u8 reserved_120[4];
	__aligned_u64 pause_ns;		/* flows of the slot held (card clock) */
	__aligned_u64 total_ns;		/* from the ioctl's entry to the slot running again */
	__u8 reserved_1c0[8];
};

/* SCENIC_SCU_IOC_SET_IRQ: attach an eventfd to a line (-1 detaches). Owner only. */
struct scenic_scu_irq {
	__u32 size;
	__u32 comp_mask;
	__u32 line;			/* 0 .. irq_lines - 1 */
	__s32 eventfd;
};

/*
 * read() on a slot fd returns one of these and clears the pending mask;
 * poll() reports POLLIN while a line is pending.
 */
struct scenic_scu_irq_event {
	__u32 pending;			/* lines pending since the last read, one bit each */
	__u32 lines;			/* irq_lines */
	__aligned_u64 total;		/* interrupts of the slot since the open */
};

/* SCENIC_SCU_IOC_CSR: one register access without a mapping (for tools). Owner only. */
struct scenic_scu_csr {
	__u32 size;
	__u32 comp_mask;
	__u32 index;			/* 0 .. SCENIC_SCU_CSR_COUNT - 1 */
	__u32 write;			/* 0: read into value, 1: write value */
	__aligned_u64 value;
};

/* The seven completion counters of a slot's QPs, in status page order (docs/scu.md 4.4). */
#define SCENIC_SCU_COMPLETION_COUNTERS(X) \
	X(remote_write) \
	X(remote_read) \
	X(remote_send) \
	X(recv_write) \
	X(recv_send) \
	X(local_read) \
	X(local_write)

/* The slot wrapper's traffic counters (docs/scu.md 2.4), in status page order. */
#define SCENIC_SCU_TRAFFIC_COUNTERS(X) \
	X(rx_pkts_in) \
	X(rx_bytes_in) \
	X(rx_pkts_out) \
	X(rx_bytes_out) \
	X(tx_pkts_in) \
	X(tx_bytes_in) \
	X(tx_pkts_out) \
	X(tx_bytes_out) \
	X(rx_stall_cycles) \
	X(tx_stall_cycles) \
	X(rx_fifo_drops) \
	X(tx_fifo_drops) \
	X(scu_drops) \
	X(violations) \
	X(mem_rd_bytes) \
	X(mem_wr_bytes) \
	X(mem_faults) \
	X(csr_timeouts) \
	X(irqs) \
	X(loads)

#define SCENIC_SCU_COUNTER_FIELD(name) __aligned_u64 name;

/* SCENIC_SCU_IOC_COUNTERS: counters after a flush by the card (any opener). All output. */
struct scenic_scu_counters {
	__u32 size;
	__u32 comp_mask;
	SCENIC_SCU_COMPLETION_COUNTERS(SCENIC_SCU_COUNTER_FIELD)
	SCENIC_SCU_TRAFFIC_COUNTERS(SCENIC_SCU_COUNTER_FIELD)
};

/* scenic_scu_steer_rule.flags */
enum scenic_scu_steer_flags {
	SCENIC_SCU_STEER_DIR_RX = 1 << 0,
	SCENIC_SCU_STEER_DIR_TX = 1 << 1,
	SCENIC_SCU_STEER_IPV6 = 1 << 2,
};

/*
 * SCENIC_SCU_IOC_STEER_ADD: fallback frames matching the rule go to the slot.
 * Owner with CAP_NET_ADMIN. EtherType and ports in host order, addresses in
 * network order (IPv4 in the first 4 bytes); a zero mask is a wildcard.
 */
struct scenic_scu_steer_rule {
	__u32 size;
	__u32 comp_mask;
	__u32 flags;			/* enum scenic_scu_steer_flags */
	__u16 priority;			/* lowest wins, then lowest rule_id */
	__u16 ethertype;
	__u16 ethertype_mask;
	__u8 ip_proto;
	__u8 ip_proto_mask;
	__u16 src_port;
	__u16 src_port_mask;
	__u16 dst_port;
	__u16 dst_port_mask;
	__u32 rule_id;			/* out */
	__u8 src_ip[16];
	__u8 src_ip_mask[16];
	__u8 dst_ip[16];
	__u8 dst_ip_mask[16];
};

/* SCENIC_SCU_IOC_STEER_DEL: owner with CAP_NET_ADMIN. */
struct scenic_scu_steer_del {
	__u32 size;
	__u32 comp_mask;
	__u32 rule_id;
	__u8 reserved_60[4];
};

/* scenic_scu_policy.qp_policy: which QPs may be created on the slot */
enum scenic_scu_qp_policy {
	SCENIC_SCU_QP_SAME_UID = 0,	/* the creator's euid is the last owner's */
	SCENIC_SCU_QP_BOUND_PD = 1,	/* only QPs of the bound PD */
	SCENIC_SCU_QP_ANY = 2,
};

/* SCENIC_SCU_IOC_SET_POLICY: owner only. */
struct scenic_scu_policy {
	__u32 size;
	__u32 comp_mask;
	__u32 qp_policy;		/* enum scenic_scu_qp_policy */
	__u8 reserved_60[4];
};

#define SCENIC_SCU_IOC_INFO _IO(SCENIC_SCU_IOC_TYPE, 0x00)
#define SCENIC_SCU_IOC_LOAD _IO(SCENIC_SCU_IOC_TYPE, 0x01)
#define SCENIC_SCU_IOC_UNLOAD _IO(SCENIC_SCU_IOC_TYPE, 0x02)
#define SCENIC_SCU_IOC_SET_IRQ _IO(SCENIC_SCU_IOC_TYPE, 0x03)
#define SCENIC_SCU_IOC_COUNTERS _IO(SCENIC_SCU_IOC_TYPE, 0x04)
#define SCENIC_SCU_IOC_CSR _IO(SCENIC_SCU_IOC_TYPE, 0x05)
#define SCENIC_SCU_IOC_STEER_ADD _IO(SCENIC_SCU_IOC_TYPE, 0x06)
#define SCENIC_SCU_IOC_STEER_DEL _IO(SCENIC_SCU_IOC_TYPE, 0x07)
#define SCENIC_SCU_IOC_SET_POLICY _IO(SCENIC_SCU_IOC_TYPE, 0x08)

#endif /* SCENIC_SCU_USER_H */
