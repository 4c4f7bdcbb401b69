// SPDX-License-Identifier: MIT
// scenic_icrc: sources, relative to hw-rtl/, in dependency order
rtl/scenic_icrc.sv
