// SPDX-License-Identifier: MIT
// The SCU admin commands (docs/scu.md 3, docs/admin-queue.md 5): SCU_LOAD, SCU_UNLOAD,
// SCU_QUERY_SLOT, SCU_BIND_PD, SCU_RESET, SCU_QUERY_CAPS, SCU_SET_STATUS_PAGE, SCU_FLUSH_STATS,
// SCU_STEER_ADD, SCU_STEER_DEL.
// Opcode and reserved bytes are checked by the admin queue first
// (check_request); then the slot (BAD_INDEX), values (BAD_ARG), the slot's state (BUSY), the
// image's DMA (DMA_ERROR) and the image itself (BAD_ARG). The reason of a refusal is kept as the
// slot's last_refusal; every refusal is counted by status. Nothing changes before all passed.
#include <array>
#include <vector>

#include "scenic/regs.hpp"
#include "scenic/scu_slots.hpp"

namespace scenic::scu {

namespace {

using admin::AqStatus;
using admin::ScuStatus;
using Entry = std::span<const uint8_t, kAqSqeBytes>;

template <size_t N>
CmdResult refusal(AqStatus status, const std::array<admin::FieldDef, N>& fields,
                  std::string_view name) {
    return {status, field_offset(fields, name)};
}

// The completion status of an image refusal.
AqStatus aq_status_of(ScuStatus s) {
    switch (s) {
        case ScuStatus::kOk:
            return AqStatus::kOk;
        case ScuStatus::kBadSlot:
            return AqStatus::kBadIndex;
        case ScuStatus::kBusy:
            return AqStatus::kBusy;
        case ScuStatus::kDmaError:
            return AqStatus::kDmaError;
        case ScuStatus::kBadAddr:
        case ScuStatus::kBadRule:
            return AqStatus::kBadArg;
        case ScuStatus::kTableFull:
            return AqStatus::kNoResources;
        case ScuStatus::kNoRule:
            return AqStatus::kNotFound;
        default:
            return AqStatus::kBadArg;
    }
}

}  // namespace

CmdResult SlotManager::command(Entry entry, std::span<uint8_t, kAqResultBytes> result) {
    std::array<uint8_t, kAqCqeBytes> cqe{};
    const std::span<uint8_t, kAqCqeBytes> c(cqe);
    CmdResult r;
    const auto op = static_cast<admin::AqOpcode>(
        admin::AqSqeHdr<const uint8_t>(entry.first<admin::AqSqeHdr<>::kSize>()).opcode());
    const auto slot_ok = [this](unsigned s, bool zero_ok) {
        return s < slots_.size() && (zero_ok || s != 0);
    };
    switch (op) {
        case admin::AqOpcode::kScuLoad: {
            const admin::AqScuLoad<const uint8_t> v(entry);
            const auto& f = admin::kAqScuLoadFields;
            const unsigned s = v.slot();
            if (!slot_ok(s, false)) {
                refuse(s, ScuStatus::kBadSlot);
                r = refusal(AqStatus::kBadIndex, f, "slot");
            } else if (v.image_addr() == 0 || (v.image_addr() & 7) != 0) {
                refuse(s, ScuStatus::kBadImage);
                r = refusal(AqStatus::kBadArg, f, "image_addr");
            } else if (v.image_len() < kImageHeaderBytes || v.image_len() > cfg_.max_image) {
                refuse(s, ScuStatus::kTooLarge);
                r = refusal(AqStatus::kBadArg, f, "image_len");
            } else if (slots_[s]->state() != admin::ScuSlotState::kRunning) {
                refuse(s, ScuStatus::kBusy);
                r = {AqStatus::kBusy, 0};
            } else {
                std::vector<uint8_t> image(v.image_len());  // bounded by max_image
                if (!env_.host.dma_read(v.image_addr(), image)) {
                    refuse(s, ScuStatus::kDmaError);
                    r = refusal(AqStatus::kDmaError, f, "image_addr");
                } else if (const ScuStatus st = load(s, image); st != ScuStatus::kOk) {
                    r = refusal(aq_status_of(st), f, "image_addr");
                } else {
                    const admin::AcqScuLoad<> out(c);
                    out.set_scu_status(static_cast<uint8_t>(ScuStatus::kOk));
                    out.set_kind(slots_[s]->next_kind());
                    out.set_reconfig_us(static_cast<uint32_t>(cfg_.reconfig_ns / 1000));
                }
            }
            break;
        }
        case admin::AqOpcode::kScuUnload: {
            const admin::AqScuUnload<const uint8_t> v(entry);
            const unsigned s = v.slot();
            if (!slot_ok(s, false)) {
                refuse(s, ScuStatus::kBadSlot);
                r = refusal(AqStatus::kBadIndex, admin::kAqScuUnloadFields, "slot");
            } else if (const ScuStatus st = unload(s); st != ScuStatus::kOk) {
                r = {aq_status_of(st), 0};
            } else {
                const admin::AcqScuLoad<> out(c);
                out.set_kind(kKindPassthrough);
                out.set_reconfig_us(static_cast<uint32_t>(cfg_.reconfig_ns / 1000));
            }
            break;
        }
        case admin::AqOpcode::kScuQuerySlot: {
            const admin::AqScuQuerySlot<const uint8_t> v(entry);
            const std::optional<SlotInfo> info = query(v.slot());
            if (!info) {
                r = refusal(AqStatus::kBadIndex, admin::kAqScuQuerySlotFields, "slot");
                break;
            }
            const admin::AcqScuQuerySlot<> out(c);
            out.set_state(static_cast<uint8_t>(info->state));
            out.set_last_refusal(static_cast<uint8_t>(info->last_refusal));
            out.set_pd_bound(info->pdn ? 1 : 0);
            out.set_kind_version(info->kind_version);
            out.set_kind(info->kind);
            out.set_pdn(info->pdn.value_or(0));
            out.set_build_id(info->build_id);
            break;
        }
        case admin::AqOpcode::kScuBindPd: {
            const admin::AqScuBindPd<const uint8_t> v(entry);
            const unsigned s = v.slot();
            if (!slot_ok(s, false)) {
                refuse(s, ScuStatus::kBadSlot);
                r = refusal(AqStatus::kBadIndex, admin::kAqScuBindPdFields, "slot");
            } else {
                bind_pd(s, v.unbind() != 0 ? std::nullopt : std::optional<uint32_t>(v.pdn()));
            }
            break;
        }
        case admin::AqOpcode::kScuReset: {
            const admin::AqScuReset<const uint8_t> v(entry);
            const unsigned s = v.slot();
            if (!slot_ok(s, false)) {
                refuse(s, ScuStatus::kBadSlot);
                r = refusal(AqStatus::kBadIndex, admin::kAqScuResetFields, "slot");
            } else if (const ScuStatus st = reset_slot(s); st != ScuStatus::kOk) {
                r = {aq_status_of(st), 0};
            }
            break;
        }
        case admin::AqOpcode::kScuQueryCaps: {
            const admin::AqScuQueryCaps<const uint8_t> v(entry);
            const auto& f = admin::kAqScuQueryCapsFields;
            const uint64_t addr = v.page_addr();
            std::optional<unsigned> kinds;
            if (addr == 0 || addr % kStatusPageBytes != 0) {
                r = refusal(AqStatus::kBadArg, f, "page_addr");
            } else if (kinds = write_caps(addr); !kinds) {
                r = refusal(AqStatus::kDmaError, f, "page_addr");
            } else {
                const admin::AcqScuQueryCaps<> out(c);
                out.set_num_slots(static_cast<uint8_t>(slots_.size()));
                out.set_irq_lines(kIrqLines);
                out.set_kinds(static_cast<uint16_t>(*kinds));
                out.set_iface_version(cfg_.iface);
                out.set_max_image(cfg_.max_image);
                out.set_reconfig_us(static_cast<uint32_t>(cfg_.reconfig_ns / 1000));
                out.set_csr_window(regs::scu::kCsrWindowDefault);
            }
            break;
        }
        case admin::AqOpcode::kScuSetStatusPage: {
            const admin::AqScuSetStatusPage<const uint8_t> v(entry);
            const auto& f = admin::kAqScuSetStatusPageFields;
            const unsigned s = v.slot();
            if (!slot_ok(s, true)) {
                refuse(s, ScuStatus::kBadSlot);
                r = refusal(AqStatus::kBadIndex, f, "slot");
            } else if (const ScuStatus st = set_status_page(s, v.page_addr());
                       st != ScuStatus::kOk) {
                r = refusal(aq_status_of(st), f, "page_addr");
            }
            break;
        }
        case admin::AqOpcode::kScuFlushStats: {
            const admin::AqScuFlushStats<const uint8_t> v(entry);
            const unsigned s = v.slot();
            if (!slot_ok(s, true)) {
                refuse(s, ScuStatus::kBadSlot);
                r = refusal(AqStatus::kBadIndex, admin::kAqScuFlushStatsFields, "slot");
            } else if (const ScuStatus st = flush_stats(s); st != ScuStatus::kOk) {
                r = {aq_status_of(st), 0};
            }
            break;
        }
        case admin::AqOpcode::kScuSteerAdd: {
            const admin::AqScuSteerAdd<const uint8_t> v(entry);
            const auto& f = admin::kAqScuSteerAddFields;
            const unsigned s = v.slot();
            unsigned index = 0;
            if (!slot_ok(s, false)) {
                refuse(s, ScuStatus::kBadSlot);
                r = refusal(AqStatus::kBadIndex, f, "slot");
            } else if (const ScuStatus st = steer_add(s, steer_rule_from(v), index);
                       st != ScuStatus::kOk) {
                r = refusal(aq_status_of(st), f, st == ScuStatus::kBadRule ? "dir_rx" : "slot");
            } else {
                const admin::AcqScuSteerAdd<> out(c);
                out.set_rule_id(index);
                out.set_rules_used(steer_.used());
            }
            break;
        }
        case admin::AqOpcode::kScuSteerDel: {
            const admin::AqScuSteerDel<const uint8_t> v(entry);
            const auto& f = admin::kAqScuSteerDelFields;
            const unsigned s = v.slot();
            if (!slot_ok(s, false)) {
                refuse(s, ScuStatus::kBadSlot);
                r = refusal(AqStatus::kBadIndex, f, "slot");
            } else if (const ScuStatus st = steer_del(s, v.rule_id()); st != ScuStatus::kOk) {
                r = refusal(aq_status_of(st), f, "rule_id");
            }
            break;
        }
        default:
            r = {AqStatus::kBadOpcode, field_offset(admin::kAqSqeHdrFields, "opcode")};
            break;
    }
    if (r.ok()) {
        std::copy(c.begin() + admin::AqCqeHdr<>::kSize, c.end(), result.begin());
    } else {
        ++refused_[static_cast<size_t>(r.status) % refused_.size()];
    }
    return r;
}

}  // namespace scenic::scu
