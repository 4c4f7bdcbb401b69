// SPDX-License-Identifier: MIT
// scenic_tlb: sources, relative to hw-rtl/, in dependency order
rtl/scenic_tlb.sv
