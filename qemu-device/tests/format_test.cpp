// SPDX-License-Identifier: MIT
// The control-path formats from one source (docs/admin-queue.md 7): the kernel's C structs
// (uapi/scenic_admin.h) and the model's views (scenic/admin.hpp) put every field at the same
// bytes, and the provider's translation of the card's codes (providers/scenic/scenic_codes.h)
// gives the intended libibverbs values.
#include <endian.h>
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

extern "C" {
#include <linux/types.h>

#include "scenic_admin.h"
#include "scenic_codes.h"  // the provider's (providers/scenic), over <infiniband/verbs.h>
#include "scenic_rdma.h"
}

#include "scenic/admin.hpp"

namespace {

namespace admin = scenic::admin;

// One SCENIC_ADMIN_FIELDS entry seen from C: its position and the member read and written
// through the C struct (little endian, element `index` of an array member).
struct CField {
    std::string strct, field;
    size_t offset, size;
    uint64_t mask;
    size_t c_offset, c_size;
    uint64_t (*read)(const uint8_t* entry, size_t index);
    void (*write)(uint8_t* entry, size_t index, uint64_t raw);
};

template <typename T>
uint64_t from_le(T v) {
    if constexpr (sizeof(T) == 1) return v;
    if constexpr (sizeof(T) == 2) return le16toh(v);
    if constexpr (sizeof(T) == 4) return le32toh(v);
    if constexpr (sizeof(T) == 8) return le64toh(v);
}
template <typename T>
T to_le(uint64_t v) {
    if constexpr (sizeof(T) == 1) return static_cast<T>(v);
    if constexpr (sizeof(T) == 2) return static_cast<T>(htole16(static_cast<uint16_t>(v)));
    if constexpr (sizeof(T) == 4) return static_cast<T>(htole32(static_cast<uint32_t>(v)));
    if constexpr (sizeof(T) == 8) return static_cast<T>(htole64(v));
}
template <typename T>
uint64_t read_member(const T& m, size_t) {
    return from_le(m);
}
template <typename T, size_t N>
uint64_t read_member(const T (&m)[N], size_t i) {
    return from_le(m[i]);
}
template <typename T>
void write_member(T& m, size_t, uint64_t v) {
    m = to_le<T>(v);
}
template <typename T, size_t N>
void write_member(T (&m)[N], size_t i, uint64_t v) {
    m[i] = to_le<T>(v);
}

#define SCENIC_C_FIELD(s, member, field, off, sz, msk)    \
    CField{#s,                                            \
           #field,                                        \
           off,                                           \
           sz,                                            \
           msk,                                           \
           offsetof(struct scenic_##s, member),           \
           sizeof(((struct scenic_##s*)nullptr)->member), \
           [](const uint8_t* e, size_t i) {               \
               struct scenic_##s c;                       \
               std::memcpy(&c, e, sizeof c);              \
               return read_member(c.member, i);           \
           },                                             \
           [](uint8_t* e, size_t i, uint64_t v) {         \
               struct scenic_##s c;                       \
               std::memcpy(&c, e, sizeof c);              \
               write_member(c.member, i, v);              \
               std::memcpy(e, &c, sizeof c);              \
           }},

const std::vector<CField> kCFields = {SCENIC_ADMIN_FIELDS(SCENIC_C_FIELD)};

const admin::FieldDef* find_cpp(const std::string& strct, const std::string& field, size_t* size) {
    for (const auto& s : admin::kStructs) {
        if (s.name != strct) continue;
        *size = s.size;
        for (const auto& f : s.fields)
            if (f.name == field) return &f;
    }
    return nullptr;
}

// A value for one field that differs from every other field's and uses its top and bottom bit.
uint64_t pattern(const admin::FieldDef& f, size_t index) {
    const uint64_t width_mask = f.mask >> f.shift;
    const uint64_t seed = 0x9e3779b97f4a7c15ULL * (f.offset + 31 * index + 1);
    return (seed | 1 | (width_mask & ~(width_mask >> 1))) & width_mask;
}

// The bytes a field with this mask may change in an entry, for element `index`.
std::vector<bool> touched(const admin::FieldDef& f, size_t size, size_t index) {
    std::vector<bool> t(size, false);
    for (uint32_t b = 0; b < f.width; ++b)
        if ((f.mask >> (8 * b)) & 0xff) t[f.offset + f.width * index + b] = true;
    return t;
}

TEST(FormatLayout, KernelAndModelAgree) {
    size_t cpp_fields = 0;
    for (const auto& s : admin::kStructs) cpp_fields += s.fields.size();
    ASSERT_EQ(kCFields.size(), cpp_fields) << "the C list and the C++ tables differ in length";
    ASSERT_GT(kCFields.size(), 100u);

    for (const auto& c : kCFields) {
        SCOPED_TRACE(c.strct + "." + c.field);
        size_t size = 0;
        const admin::FieldDef* f = find_cpp(c.strct, c.field, &size);
        ASSERT_NE(f, nullptr) << "no C++ field";
        EXPECT_EQ(c.c_offset, c.offset) << "offsetof vs the list";
        EXPECT_EQ(c.c_size, c.size) << "sizeof vs the list";
        EXPECT_EQ(c.c_offset, f->offset) << "C offsetof vs C++ offset";
        EXPECT_EQ(c.c_size, size_t{f->width} * f->count) << "C sizeof vs C++ width";
        EXPECT_EQ(c.mask, f->mask) << "C mask vs C++ mask";
        EXPECT_EQ(f->shift, static_cast<uint32_t>(std::countr_zero(c.mask)));

        for (size_t i = 0; i < f->count; ++i) {
            const uint64_t v = pattern(*f, i);
            const auto may = touched(*f, size, i);

            // Model writes, kernel reads.
            std::vector<uint8_t> buf(size, 0);
            f->set(buf, i, v);
            EXPECT_EQ((c.read(buf.data(), i) & c.mask) >> f->shift, v) << "index " << i;
            size_t stray = 0;
            for (size_t b = 0; b < size; ++b) stray += !may[b] && buf[b] != 0;
            EXPECT_EQ(stray, 0u) << "C++ set wrote bytes outside the field";

            // Kernel writes (FIELD_PREP style), model reads.
            std::vector<uint8_t> cbuf(size, 0);
            c.write(cbuf.data(), i, (v << f->shift) & c.mask);
            EXPECT_EQ(f->get(cbuf, i), v) << "index " << i;
            EXPECT_EQ(cbuf, buf) << "the two sides wrote different bytes";

            // The other bits of the member survive a set through the view (read-modify-write).
            std::vector<uint8_t> full(size, 0xff);
            f->set(full, i, 0);
            EXPECT_EQ(c.read(full.data(), i) & c.mask, 0u);
            EXPECT_EQ(c.read(full.data(), i) | c.mask,
                      c.read(full.data(), i) | ~0ULL >> (64 - 8 * f->width));
        }
    }
}

TEST(FormatLayout, TypedViewsAndTables) {
    std::array<uint8_t, 128> e{};
    admin::AqModifyQp<> v(e);
    v.set_opcode(static_cast<uint8_t>(admin::AqOpcode::kModifyQp));
    v.set_phase(1);
    v.set_flow_label(0xabcde);
    v.set_ipv4(1);
    v.set_dest_qpn(0x1234567);  // 25 bits: the view keeps 24
    v.set_dmac(5, 0x66);
    EXPECT_EQ(e[2], 0x19);
    EXPECT_EQ(e[3], 0x01);
    EXPECT_EQ(e[0x28], 0xde);
    EXPECT_EQ(e[0x29], 0xbc);
    EXPECT_EQ(e[0x2a], 0x0a);
    EXPECT_EQ(e[0x2b], 0x80);
    EXPECT_EQ(e[0x18], 0x67);
    EXPECT_EQ(e[0x1b], 0x00);
    EXPECT_EQ(e[0x31], 0x66);
    const admin::AqModifyQp<const uint8_t> r{std::span<const uint8_t, 128>(e)};
    EXPECT_EQ(r.dest_qpn(), 0x234567u);
    EXPECT_EQ(r.flow_label(), 0xabcdeu);
    EXPECT_EQ(r.ipv4(), 1u);
    EXPECT_THROW(r.dmac(6), std::out_of_range);

    std::map<uint8_t, std::string> ops;
    for (const auto& c : admin::kCommands) ops[c.opcode] = std::string(c.name);
    EXPECT_EQ(ops.size(), 32u);
    EXPECT_EQ(ops.at(SCENIC_AQ_OP_CREATE_SRQ), "create_srq");
    EXPECT_EQ(ops.at(SCENIC_AQ_OP_DESTROY_SRQ), "destroy_srq");
    // The contract's offsets (docs/verbs-completeness.md 9.1): CREATE_QP's srqn at 0x2e.
    EXPECT_EQ(offsetof(struct scenic_aq_create_qp, srqn), 0x2eu);
    EXPECT_EQ(SCENIC_AQ_OP_CREATE_SRQ, 0x28);
    EXPECT_EQ(SCENIC_AQ_OP_DESTROY_SRQ, 0x2b);
    EXPECT_EQ(ops.at(SCENIC_AQ_OP_SCU_STEER_ADD), "scu_steer_add");
    EXPECT_EQ(ops.at(SCENIC_AQ_OP_ALLOC_MW), "alloc_mw");
    EXPECT_EQ(ops.at(SCENIC_AQ_OP_DEALLOC_MW), "dealloc_mw");
    EXPECT_EQ(ops.at(SCENIC_AQ_OP_CREATE_AH), "create_ah");
    EXPECT_EQ(ops.at(SCENIC_AQ_OP_DESTROY_AH), "destroy_ah");
    // The AV of CREATE_AH at 0x10 has the bytes of struct scenic_av (uapi/scenic_rdma.h).
    EXPECT_EQ(offsetof(struct scenic_aq_create_ah, dmac), 0x10u + offsetof(struct scenic_av, dmac));
    EXPECT_EQ(offsetof(struct scenic_aq_create_ah, flow), 0x10u + offsetof(struct scenic_av, flow));
    EXPECT_EQ(offsetof(struct scenic_aq_create_ah, dgid), 0x10u + offsetof(struct scenic_av, dgid));
    EXPECT_EQ(offsetof(struct scenic_aq_create_ah, sgid), 0x10u + offsetof(struct scenic_av, sgid));
    EXPECT_EQ(sizeof(struct scenic_av), 48u);
    EXPECT_EQ(ops.at(SCENIC_AQ_OP_SCU_STEER_DEL), "scu_steer_del");
    // The rule sits at the offsets of the ABI's scenic_scu_steer_rule (docs/scu.md 3, 4.2).
    EXPECT_EQ(offsetof(struct scenic_aq_scu_steer_add, flags), 0x08u);
    EXPECT_EQ(offsetof(struct scenic_aq_scu_steer_add, dst_port_mask), 0x1au);
    EXPECT_EQ(offsetof(struct scenic_aq_scu_steer_add, src_ip), 0x20u);
    EXPECT_EQ(offsetof(struct scenic_aq_scu_steer_add, dst_ip_mask), 0x50u);
    EXPECT_EQ(offsetof(struct scenic_aq_scu_steer_add, slot), 0x60u);
    EXPECT_EQ(ops.at(SCENIC_AQ_OP_TLB_FILL), "tlb_fill");
    EXPECT_EQ(ops.at(SCENIC_AQ_OP_SCU_LOAD), "scu_load");
    EXPECT_EQ(ops.at(SCENIC_AQ_OP_SCU_FLUSH_STATS), "scu_flush_stats");
    EXPECT_EQ(sizeof(struct scenic_scu_status_page), admin::ScuStatusPage<>::kSize);
    EXPECT_EQ(offsetof(struct scenic_scu_status_page, counters), 0x100u);
    EXPECT_EQ(sizeof(struct scenic_aeqe_scu), admin::AeqeScu<>::kSize);
    EXPECT_EQ(sizeof(struct scenic_aq_tlb_fill), admin::AqTlbFill<>::kSize);
    EXPECT_EQ(sizeof(struct scenic_aeqe_overflow), admin::AeqeOverflow<>::kSize);
    EXPECT_EQ(sizeof(struct scenic_ceqe), 8u);
}

// The intended translation, written from docs/admin-queue.md 6.2 and 6.3, not generated.
template <typename T>
struct Expect {
    unsigned card;
    T ibv;
};

template <typename T, size_t N>
void check_codes(const std::vector<unsigned>& generated, const Expect<T> (&want)[N],
                 T (*translate)(unsigned), T fallback) {
    std::map<unsigned, T> table;
    for (const auto& w : want) table[w.card] = w.ibv;
    for (unsigned card : generated)
        EXPECT_TRUE(table.count(card)) << "card value " << card << " untested";
    EXPECT_EQ(table.size(), generated.size());
    for (unsigned v = 0; v < 0x200; ++v) {
        const auto it = table.find(v);
        EXPECT_EQ(translate(v), it == table.end() ? fallback : it->second) << "card value " << v;
    }
}

#define SCENIC_VALUE(e, name) static_cast<unsigned>(e),

TEST(CardCodes, EveryValueTranslated) {
    const Expect<ibv_wc_status> wc[] = {
        {0, IBV_WC_SUCCESS},         {1, IBV_WC_LOC_LEN_ERR},        {2, IBV_WC_LOC_QP_OP_ERR},
        {3, IBV_WC_LOC_PROT_ERR},    {4, IBV_WC_WR_FLUSH_ERR},       {5, IBV_WC_BAD_RESP_ERR},
        {6, IBV_WC_REM_INV_REQ_ERR}, {7, IBV_WC_REM_ACCESS_ERR},     {8, IBV_WC_REM_OP_ERR},
        {9, IBV_WC_RETRY_EXC_ERR},   {10, IBV_WC_RNR_RETRY_EXC_ERR}, {11, IBV_WC_MW_BIND_ERR},
    };
    check_codes<ibv_wc_status>(
        {SCENIC_CQE_STATUS_VALUES(SCENIC_VALUE)}, wc,
        [](unsigned c) { return scenic_wc_status_to_ibv(c); }, IBV_WC_GENERAL_ERR);
    // The card's numbering differs from the verbs one on purpose: an untranslated use shows.
    EXPECT_NE(static_cast<unsigned>(SCENIC_CQE_STATUS_FLUSHED),
              static_cast<unsigned>(IBV_WC_WR_FLUSH_ERR));

    const Expect<ibv_qp_state> qps[] = {
        {0, IBV_QPS_RESET}, {1, IBV_QPS_INIT}, {2, IBV_QPS_RTR}, {3, IBV_QPS_RTS},
        {4, IBV_QPS_SQD},   {5, IBV_QPS_SQE},  {6, IBV_QPS_ERR},
    };
    check_codes<ibv_qp_state>(
        {SCENIC_QP_STATE_VALUES(SCENIC_VALUE)}, qps,
        [](unsigned c) { return scenic_qp_state_to_ibv(c); }, IBV_QPS_ERR);
    for (const auto& w : qps) EXPECT_EQ(scenic_qp_state_from_ibv(w.ibv), static_cast<int>(w.card));
    EXPECT_EQ(scenic_qp_state_from_ibv(IBV_QPS_UNKNOWN), -1);
}

}  // namespace
