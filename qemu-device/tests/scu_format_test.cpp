// SPDX-License-Identifier: MIT
// The SCU's control-path formats (docs/scu.md 3, 5): the four admin commands in the SCU opcode
// group with their request and result entries, the refusal codes, and the SCU AEQ event.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "scenic/admin.hpp"
#include "scenic/regs.hpp"

namespace scenic::test {
namespace {

const admin::CommandDef* command(uint8_t opcode) {
    const auto* it =
        std::find_if(admin::kCommands.begin(), admin::kCommands.end(),
                     [opcode](const admin::CommandDef& c) { return c.opcode == opcode; });
    return it == admin::kCommands.end() ? nullptr : &*it;
}

TEST(ScuFormat, CommandsInTheScuOpcodeGroup) {
    struct Want {
        uint8_t opcode;
        std::string_view name, request, result;
    };
    const std::array<Want, 4> want{{
        {0x60, "scu_load", "aq_scu_load", "acq_scu_load"},
        {0x61, "scu_unload", "aq_scu_unload", "acq_scu_load"},
        {0x62, "scu_query_slot", "aq_scu_query_slot", "acq_scu_query_slot"},
        {0x63, "scu_bind_pd", "aq_scu_bind_pd", "aq_cqe"},
    }};
    for (const Want& w : want) {
        const admin::CommandDef* c = command(w.opcode);
        ASSERT_NE(c, nullptr) << w.name;
        EXPECT_EQ(c->name, w.name);
        EXPECT_EQ(c->request, w.request);
        EXPECT_EQ(c->result, w.result);
    }
    EXPECT_EQ(static_cast<uint8_t>(admin::AqOpcode::kScuLoad), 0x60);
    EXPECT_EQ(static_cast<uint8_t>(admin::AqOpcode::kScuBindPd), 0x63);
}

TEST(ScuFormat, LoadRequestFieldsAtTheirBytes) {
    std::array<uint8_t, 128> e{};
    const admin::AqScuLoad<> v{std::span<uint8_t, 128>(e)};
    v.set_slot(5);
    v.set_image_addr(0x1122334455667788ULL);
    v.set_image_len(0xa0b0c0d0);
    EXPECT_EQ(e[0x08], 5);
    EXPECT_EQ(e[0x10], 0x88);
    EXPECT_EQ(e[0x17], 0x11);
    EXPECT_EQ(e[0x18], 0xd0);
    EXPECT_EQ(e[0x1b], 0xa0);
}

TEST(ScuFormat, StatusCodesAreDistinctAndStable) {
    EXPECT_EQ(static_cast<uint8_t>(admin::ScuStatus::kOk), 0);
    EXPECT_EQ(static_cast<uint8_t>(admin::ScuStatus::kBadSlot), 1);
    EXPECT_EQ(static_cast<uint8_t>(admin::ScuStatus::kBusy), 2);
    EXPECT_EQ(static_cast<uint8_t>(admin::ScuStatus::kTooLarge), 3);
    EXPECT_EQ(static_cast<uint8_t>(admin::ScuStatus::kBadImage), 4);
    EXPECT_EQ(static_cast<uint8_t>(admin::ScuStatus::kUnknownKind), 6);
}

TEST(ScuFormat, ScuEventEntry) {
    std::array<uint8_t, 32> e{};
    const admin::AeqeScu<> v{std::span<uint8_t, 32>(e)};
    v.set_type(static_cast<uint8_t>(admin::AeqType::kScu));
    v.set_slot(3);
    v.set_kind(static_cast<uint8_t>(admin::ScuEventKind::kReconfigured));
    v.set_info(8000);
    v.set_count(2);
    EXPECT_EQ(e[0x00], 7);
    EXPECT_EQ(e[0x10], 3);
    EXPECT_EQ(e[0x11], 1);
    EXPECT_EQ(e[0x14], 0x40);
    EXPECT_EQ(e[0x15], 0x1f);
    EXPECT_EQ(e[0x18], 2);
}

TEST(ScuFormat, RegistersOfTheContract) {
    EXPECT_EQ(regs::scu::kVersion, 0x00010002u);
    EXPECT_EQ(regs::scu::kIfaceVersionDefault, 0x00010000u);
    EXPECT_EQ(regs::scu::kCsrWindowDefault & 0xff, 3u);          // BAR3
    EXPECT_EQ((regs::scu::kCsrWindowDefault >> 8) & 0xff, 16u);  // 64 KiB
    EXPECT_LE(regs::scu::kNumSlotsDefault, 16u);
}

}  // namespace
}  // namespace scenic::test
