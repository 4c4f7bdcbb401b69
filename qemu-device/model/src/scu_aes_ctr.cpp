// SPDX-License-Identifier: MIT
#include "scenic/scu_aes_ctr.hpp"

#include "scenic/dp/aes128.hpp"

namespace scenic::scu {

void AesCtr::reset() {
    csr_.fill(0);
    csr_[kQpnMask] = kQpnMaskReset;
}

void AesCtr::push(Dir d, const Meta& m, std::span<const uint8_t> data) {
    const bool tx = d == Dir::kTx;
    const bool on = (csr_[kCtrl] & (tx ? kCtrlTx : kCtrlRx)) != 0 && m.src == kSrcRdma;
    out_.assign(data.begin(), data.end());
    if (on) {
        const dp::Aes128 aes(dp::block_from_csrs(csr_[kKeyHi], csr_[kKeyLo]));
        const dp::AesBlock iv = tx ? dp::block_from_csrs(csr_[kIvTxHi], csr_[kIvTxLo])
                                   : dp::block_from_csrs(csr_[kIvRxHi], csr_[kIvRxLo]);
        const auto qpn = static_cast<uint32_t>(m.qpn & csr_[kQpnMask] & 0xffffff);
        dp::aes_ctr_apply(aes, iv, qpn, m.offset, data, out_);
    }
    ++csr_[kPkts];
    csr_[kBytes] += data.size();
    port().emit(d, out_);
}

uint64_t AesCtr::csr_read(uint32_t index) {
    if (index == kId) {
        return kIdValue;
    }
    return index < csr_.size() ? csr_[index] : 0;
}

void AesCtr::csr_write(uint32_t index, uint64_t value, uint8_t byte_mask) {
    if (index > kCtrl) {
        return;  // read-only or unused
    }
    uint64_t v = merge_bytes(csr_[index], value, byte_mask);
    if (index == kQpnMask) {
        v &= 0xffffff;
    } else if (index == kCtrl) {
        v &= kCtrlTx | kCtrlRx;
    }
    csr_[index] = v;
}

}  // namespace scenic::scu
