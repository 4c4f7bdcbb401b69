// SPDX-License-Identifier: MIT
// scenic_cc_window: sources, relative to hw-rtl/, in dependency order
rtl/scenic_cc_window.sv
