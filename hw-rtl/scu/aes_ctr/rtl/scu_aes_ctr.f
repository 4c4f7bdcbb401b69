// SPDX-License-Identifier: MIT
// scu_aes_ctr: sources, relative to hw-rtl/, in dependency order
scu/aes_ctr/rtl/scu_aes_ctr_sbox.sv
scu/aes_ctr/rtl/scu_aes_ctr_round.sv
scu/aes_ctr/rtl/scu_aes_ctr_keyexp.sv
scu/aes_ctr/rtl/scu_aes_ctr_dir.sv
scu/aes_ctr/rtl/scu_aes_ctr.sv
